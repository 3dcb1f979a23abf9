public import StageMedia
/// Where a local video track's pictures come from: a camera, a synthetic pattern or a file.
///
/// Pull model: the capture loop calls ``nextFrame(captureTimeMicros:)`` once per frame period
/// (1 / ``framerate``) and stamps the frame with the time it asked.
public protocol VideoSource: Sendable {
    var width: Int { get }
    var height: Int { get }
    /// Frames per second the source is meant to be read at.
    var framerate: Double { get }
    /// How many times per frame period the capture loop asks for a frame (default 1).
    var pollsPerFrame: Int { get }

    /// The next picture, or `nil` when a non-looping file has ended.
    ///
    /// - Parameter captureTimeMicros: the capture clock now; the frame carries it.
    mutating func nextFrame(captureTimeMicros: UInt64) throws -> VideoFrame?
}

extension VideoSource {
    /// How many times per frame period the capture loop asks for a frame: 1 for sources that
    /// make a frame when asked; more for live ones whose frames arrive on their own clock.
    public var pollsPerFrame: Int { 1 }
}
