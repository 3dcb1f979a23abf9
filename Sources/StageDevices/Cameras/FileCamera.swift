public import StageMedia
/// A camera that plays a YUV4MPEG2 file (``Y4MReader``) at the file's frame rate.
public struct FileCamera: VideoSource {
    public private(set) var reader: Y4MReader
    /// Start again at the first frame after the last one instead of ending.
    public var loop: Bool

    public init(path: String, loop: Bool = false) throws(Y4MError) {
        self.init(reader: try Y4MReader(path: path), loop: loop)
    }

    public init(reader: Y4MReader, loop: Bool = false) {
        self.reader = reader
        self.loop = loop
    }

    public var width: Int { reader.header.width }
    public var height: Int { reader.header.height }
    public var framerate: Double { reader.header.framesPerSecond }

    /// The next frame; at the end, the first one again when looping, else `nil`.
    public mutating func nextFrame(captureTimeMicros: UInt64) throws(Y4MError) -> VideoFrame? {
        if let frame = try reader.nextFrame(captureTimeMicros: captureTimeMicros) { return frame }
        guard loop, reader.frameIndex > 0 else { return nil }
        reader.rewind()
        return try reader.nextFrame(captureTimeMicros: captureTimeMicros)
    }
}
