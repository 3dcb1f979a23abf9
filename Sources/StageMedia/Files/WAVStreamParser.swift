/// Reads a RIFF WAVE stream as it arrives (Microsoft RIFF specification; PCM as ``WAVFormat``
/// accepts it: 16-bit, 48 kHz, mono or stereo), for sources that cannot seek: a pipe from
/// `ffmpeg … -f wav -`, a FIFO. The `data` chunk of a stream has no usable size (writers put
/// 0 or 0xFFFFFFFF there), so its samples run to the end of the stream. Bytes go in with
/// ``append(_:)``; ``nextBlock(sampleFrames:)`` hands out whole blocks once they are in. After
/// an error every call throws it again (a WAV stream has no sync marker to resume at).
public struct WAVStreamParser: Sendable {
    /// Bytes of the chunks before `data` accepted at most (`LIST` and the like are small).
    public static let maximumHeaderBytes = 65_536

    /// The format, once the header up to the `data` chunk has arrived.
    public private(set) var format: WAVFormat?

    private var buffer: [UInt8] = []
    private var start = 0
    private var headerBytes = 0
    private var sawRIFF = false
    private var failure: WAVError?

    public init() {}

    /// Takes in the next bytes of the stream.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Parses the header up to the `data` chunk if it is complete; nil while more bytes are needed.
    public mutating func readHeader() throws(WAVError) -> WAVFormat? {
        if let failure { throw failure }
        if let format, sawRIFF, headerBytes < 0 { return format }
        do {
            return try parseHeader()
        } catch {
            failure = error
            throw error
        }
    }

    /// The next `sampleFrames` sample frames, or nil while they have not all arrived.
    public mutating func nextBlock(sampleFrames: Int) throws(WAVError) -> [Int16]? {
        guard let format = try readHeader() else { return nil }
        let bytes = sampleFrames * format.blockAlign
        guard buffer.count - start >= bytes else { return nil }
        var samples = [Int16](repeating: 0, count: sampleFrames * format.channels)
        for index in samples.indices {
            let offset = start + 2 * index
            samples[index] = Int16(bitPattern: UInt16(buffer[offset]) | UInt16(buffer[offset + 1]) << 8)
        }
        start += bytes
        return samples
    }

    /// Walks the chunks; `headerBytes` becomes -1 once the `data` chunk's body is reached.
    private mutating func parseHeader() throws(WAVError) -> WAVFormat? {
        if !sawRIFF {
            let head = buffer[start...].prefix(12)
            guard Array("RIFF".utf8).starts(with: head.prefix(4)) else { throw .notRIFF(found: Array(head.prefix(4))) }
            guard head.count == 12 else { return nil }
            guard head.dropFirst(8).elementsEqual("WAVE".utf8) else { throw .notWAVE(found: Array(head.dropFirst(8))) }
            sawRIFF = true
            start += 12
            headerBytes = 12
        }
        while headerBytes >= 0 {
            guard buffer.count - start >= 8 else { return nil }
            let id = String(decoding: buffer[start..<(start + 4)], as: UTF8.self)
            let size = Int(UInt32(buffer[start + 4]) | UInt32(buffer[start + 5]) << 8 | UInt32(buffer[start + 6]) << 16
                           | UInt32(buffer[start + 7]) << 24)
            if id == "data" {
                guard format != nil else { throw .missingChunk("fmt ") }
                start += 8
                headerBytes = -1
                break
            }
            let padded = size + (size & 1)
            guard headerBytes + 8 + padded <= Self.maximumHeaderBytes else {
                throw .chunkBeyondEnd(id: id, offset: Int64(headerBytes), size: UInt32(size), available: Int64(Self.maximumHeaderBytes - headerBytes - 8))
            }
            guard buffer.count - start >= 8 + padded else { return nil }
            if id == "fmt ", format == nil {
                format = try WAVFormat(parsing: Array(buffer[(start + 8)..<(start + 8 + min(size, 40))]))
            }
            start += 8 + padded
            headerBytes += 8 + padded
        }
        return format
    }
}
