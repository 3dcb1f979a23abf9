/// Reads a YUV4MPEG2 stream as it arrives (mjpegtools yuv4mpeg(5)), for sources that cannot
/// seek: a pipe from `ffmpeg -f yuv4mpegpipe -`, a FIFO. Bytes go in with ``append(_:)`` in
/// whatever pieces the producer wrote; ``nextFrame(captureTimeMicros:)`` hands out each frame
/// once all of its bytes are in. The same limits and errors as ``Y4MReader``; after an error
/// the stream cannot be resynchronised (Y4M has no sync marker) and every call throws it again.
public struct Y4MStreamParser: Sendable {
    /// The header, once its line has arrived.
    public private(set) var header: Y4MHeader?
    /// Index of the frame the next ``nextFrame(captureTimeMicros:)`` returns.
    public private(set) var frameIndex = 0
    /// Bytes taken in since the start of the stream.
    public private(set) var bytesRead: Int64 = 0

    private var buffer: [UInt8] = []
    /// Start of the unread bytes in `buffer` (consumed bytes are dropped in batches).
    private var start = 0
    private var failure: Y4MError?

    public init() {}

    /// Bytes not yet part of a returned frame.
    public var bufferedByteCount: Int { buffer.count - start }

    /// Takes in the next bytes of the stream.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        let before = buffer.count
        buffer.append(contentsOf: bytes)
        bytesRead += Int64(buffer.count - before)
    }

    /// Parses the header if its line is complete. Returns it, or `nil` while more bytes are needed.
    public mutating func readHeader() throws(Y4MError) -> Y4MHeader? {
        if let failure { throw failure }
        if let header { return header }
        let unread = buffer[start...]
        guard let end = unread.firstIndex(of: 0x0A) else {
            let magic = Y4MHeader.magic
            guard unread.starts(with: magic.prefix(unread.count)) else { return try fail(.notYUV4MPEG2(prefix: Array(unread.prefix(9)))) }
            guard unread.count < Y4MHeader.maximumHeaderBytes else { return try fail(.headerTooLong(limit: Y4MHeader.maximumHeaderBytes)) }
            return nil
        }
        guard end - start < Y4MHeader.maximumHeaderBytes else { return try fail(.headerTooLong(limit: Y4MHeader.maximumHeaderBytes)) }
        do {
            header = try Y4MHeader(parsing: buffer[start..<end])
        } catch {
            return try fail(error)
        }
        start = end + 1
        return header
    }

    /// The next complete frame, or `nil` while its bytes have not all arrived.
    ///
    /// - Parameter captureTimeMicros: stamped on the returned frame (Y4M carries no timestamps).
    public mutating func nextFrame(captureTimeMicros: UInt64 = 0) throws(Y4MError) -> VideoFrame? {
        guard let header = try readHeader() else { return nil }
        let marker: [UInt8] = Array("FRAME".utf8)
        let unread = buffer[start...]
        guard unread.count >= marker.count else {
            guard marker.starts(with: unread) else { return try fail(.missingFrameMarker(frame: frameIndex, offset: offset)) }
            return nil
        }
        guard unread.starts(with: marker) else { return try fail(.missingFrameMarker(frame: frameIndex, offset: offset)) }
        let lineLimit = Y4MReader.maximumFrameHeaderBytes
        guard let end = unread.prefix(lineLimit).firstIndex(of: 0x0A) else {
            guard unread.count < lineLimit else { return try fail(.frameHeaderTooLong(frame: frameIndex, limit: lineLimit)) }
            return nil
        }
        guard end - start == marker.count || buffer[start + marker.count] == 0x20 else {
            return try fail(.missingFrameMarker(frame: frameIndex, offset: offset))
        }
        let planes = end + 1
        guard buffer.count - planes >= header.frameByteCount else { return nil }
        let lumaCount = header.width * header.height
        let chroma = VideoFrame.chromaSize(width: header.width, height: header.height)
        let chromaCount = chroma.width * chroma.height
        let y = Array(buffer[planes..<(planes + lumaCount)])
        let u = Array(buffer[(planes + lumaCount)..<(planes + lumaCount + chromaCount)])
        let v = Array(buffer[(planes + lumaCount + chromaCount)..<(planes + lumaCount + 2 * chromaCount)])
        start = planes + header.frameByteCount
        frameIndex += 1
        return VideoFrame(width: header.width, height: header.height, y: y, u: u, v: v, captureTimeMicros: captureTimeMicros)
    }

    /// Stream offset of the first unread byte.
    private var offset: Int64 { bytesRead - Int64(bufferedByteCount) }

    private mutating func fail<T>(_ error: Y4MError) throws(Y4MError) -> T {
        failure = error
        throw error
    }
}
