/// Reads the frames of a YUV4MPEG2 (`.y4m`) stream one at a time (mjpegtools yuv4mpeg(5)):
/// a ``Y4MHeader`` line, then per frame a `FRAME[ parameters]\n` line and the Y, U and V planes.
///
/// Frames are read from the file as they are asked for, never the whole file at once. Copies of
/// a reader keep independent positions.
public struct Y4MReader: Sendable {
    /// The longest `FRAME…` line accepted, line feed included.
    public static let maximumFrameHeaderBytes = 1024

    public let header: Y4MHeader
    /// Index of the frame the next ``nextFrame(captureTimeMicros:)`` returns.
    public private(set) var frameIndex = 0

    private let bytes: MediaFileBytes
    private let firstFrameOffset: Int64
    private var offset: Int64

    /// Reads the header of the file at `path`.
    public init(path: String) throws(Y4MError) {
        let file: MediaFileInput
        do { file = try MediaFileInput(path: path) } catch { throw .io(error) }
        try self.init(source: .file(file))
    }

    /// Reads the header of a stream held in memory.
    public init(bytes: [UInt8]) throws(Y4MError) {
        try self.init(source: .memory(bytes))
    }

    private init(source: MediaFileBytes) throws(Y4MError) {
        guard source.count > 0 else { throw .empty }
        let head = try Self.read(source, at: 0, count: Y4MHeader.maximumHeaderBytes)
        guard let end = head.firstIndex(of: 0x0A) else {
            let magic = Y4MHeader.magic
            // Only a recognizable start is "truncated"; anything else is not a Y4M stream.
            guard head.starts(with: magic.prefix(head.count)) else {
                throw .notYUV4MPEG2(prefix: Array(head.prefix(9)))
            }
            throw head.count < Y4MHeader.maximumHeaderBytes ? .truncatedHeader(bytes: head.count) : .headerTooLong(limit: Y4MHeader.maximumHeaderBytes)
        }
        header = try Y4MHeader(parsing: head[..<end])
        bytes = source
        firstFrameOffset = Int64(end + 1)
        offset = firstFrameOffset
    }

    /// The next frame, or `nil` at the end of the stream.
    ///
    /// - Parameter captureTimeMicros: stamped on the returned frame (Y4M carries no timestamps).
    /// - Throws: ``Y4MError`` for a missing `FRAME` marker, a truncated frame, or a read error.
    public mutating func nextFrame(captureTimeMicros: UInt64 = 0) throws(Y4MError) -> VideoFrame? {
        let frame = frameIndex
        guard offset < bytes.count else { return nil }
        let line = try Self.read(bytes, at: offset, count: Self.maximumFrameHeaderBytes)
        let marker: [UInt8] = Array("FRAME".utf8)
        guard line.count >= marker.count else {
            guard marker.starts(with: line) else { throw .missingFrameMarker(frame: frame, offset: offset) }
            throw .truncatedFrameHeader(frame: frame)
        }
        guard line.starts(with: marker) else { throw .missingFrameMarker(frame: frame, offset: offset) }
        guard let end = line.firstIndex(of: 0x0A) else {
            throw line.count < Self.maximumFrameHeaderBytes
                ? .truncatedFrameHeader(frame: frame) : .frameHeaderTooLong(frame: frame, limit: Self.maximumFrameHeaderBytes)
        }
        guard end == marker.count || line[marker.count] == 0x20 else { throw .missingFrameMarker(frame: frame, offset: offset) }

        let planesOffset = offset + Int64(end + 1)
        let expected = header.frameByteCount
        let available = bytes.count - planesOffset
        guard available >= Int64(expected) else {
            throw .truncatedFrame(frame: frame, expected: expected, available: Int(max(0, available)))
        }
        let lumaCount = header.width * header.height
        let chroma = VideoFrame.chromaSize(width: header.width, height: header.height)
        let chromaCount = chroma.width * chroma.height
        let y = try Self.read(bytes, at: planesOffset, count: lumaCount)
        let u = try Self.read(bytes, at: planesOffset + Int64(lumaCount), count: chromaCount)
        let v = try Self.read(bytes, at: planesOffset + Int64(lumaCount + chromaCount), count: chromaCount)
        // The file may have shrunk since it was opened.
        guard y.count == lumaCount, u.count == chromaCount, v.count == chromaCount else {
            throw .truncatedFrame(frame: frame, expected: expected, available: y.count + u.count + v.count)
        }
        offset = planesOffset + Int64(expected)
        frameIndex += 1
        return VideoFrame(width: header.width, height: header.height, y: y, u: u, v: v, captureTimeMicros: captureTimeMicros)
    }

    /// Goes back to the first frame.
    public mutating func rewind() {
        offset = firstFrameOffset
        frameIndex = 0
    }

    private static func read(_ bytes: MediaFileBytes, at offset: Int64, count: Int) throws(Y4MError) -> [UInt8] {
        do { return try bytes.read(at: offset, count: count) } catch { throw .io(error) }
    }
}
