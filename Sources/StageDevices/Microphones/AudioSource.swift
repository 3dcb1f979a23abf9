public import StageMedia
/// Where a local audio track's samples come from: a microphone, a tone or a file.
///
/// Pull model: the capture loop calls ``nextFrame(captureTimeMicros:)`` every 20 ms and gets
/// ``AudioCapture/samplesPerChannel`` (960) samples per channel at 48 kHz, one Opus frame.
public protocol AudioSource: Sendable {
    /// 1 or 2.
    var channels: Int { get }
    /// How many times per 20 ms the capture loop asks for a block (default 1): more for live
    /// sources whose blocks arrive on their own clock, so that a block waits less.
    var pollsPerFrame: Int { get }

    /// The next 20 ms, or `nil` when a non-looping file has ended.
    ///
    /// - Parameter captureTimeMicros: the capture clock now; the frame carries it.
    mutating func nextFrame(captureTimeMicros: UInt64) throws -> AudioFrame?
}

extension AudioSource {
    public var pollsPerFrame: Int { 1 }
}

/// The framing every ``AudioSource`` delivers.
public enum AudioCapture {
    /// 20 ms at 48 kHz.
    public static let samplesPerChannel = 960
}
