/// Reads 16-bit PCM samples from a RIFF WAVE file (Microsoft/IBM "Multimedia Programming
/// Interface and Data Specifications 1.0", 1991): `RIFF` size `WAVE`, then chunks of a
/// four-character id, a little-endian 32-bit size and the body, padded to an even length.
///
/// Unknown chunks (`LIST`, `fact`, `bext`, …) are skipped; the `fmt ` chunk must describe
/// ``WAVFormat`` (PCM or WAVE_FORMAT_EXTENSIBLE/PCM, 16-bit, 48 kHz, 1 or 2 channels). The RIFF
/// size field is ignored (writers often leave it wrong); chunk sizes must fit in the file.
/// Samples are read as they are asked for. Copies of a reader keep independent positions.
public struct WAVReader: Sendable {
    /// Chunks walked, at most, looking for `fmt ` and `data`.
    public static let maximumChunks = 10_000

    public let format: WAVFormat
    /// Sample frames (one sample per channel) in the `data` chunk.
    public let sampleFrameCount: Int
    /// Sample frames read so far.
    public private(set) var position = 0

    private let bytes: MediaFileBytes
    private let dataOffset: Int64

    /// Reads the chunk layout of the file at `path`.
    public init(path: String) throws(WAVError) {
        let file: MediaFileInput
        do { file = try MediaFileInput(path: path) } catch { throw .io(error) }
        try self.init(source: .file(file))
    }

    /// Reads the chunk layout of a file held in memory.
    public init(bytes: [UInt8]) throws(WAVError) {
        try self.init(source: .memory(bytes))
    }

    private init(source: MediaFileBytes) throws(WAVError) {
        let header = try Self.read(source, at: 0, count: 12)
        guard header.count == 12 else {
            // Only a recognizable start is "truncated"; anything else is not a RIFF file.
            guard Array("RIFF".utf8).starts(with: header.prefix(4)) else { throw .notRIFF(found: Array(header.prefix(4))) }
            throw .truncatedHeader(available: header.count)
        }
        guard header[0..<4].elementsEqual("RIFF".utf8) else { throw .notRIFF(found: Array(header[0..<4])) }
        guard header[8..<12].elementsEqual("WAVE".utf8) else { throw .notWAVE(found: Array(header[8..<12])) }

        var format: WAVFormat?
        var data: (offset: Int64, size: Int64)?
        var offset: Int64 = 12
        var chunks = 0
        // A chunk header needs 8 bytes; fewer trailing bytes are ignored.
        while offset + 8 <= source.count, format == nil || data == nil {
            chunks += 1
            guard chunks <= Self.maximumChunks else { throw .tooManyChunks(limit: Self.maximumChunks) }
            let chunkHeader = try Self.read(source, at: offset, count: 8)
            let id = String(decoding: chunkHeader[0..<4], as: UTF8.self)
            let size = MediaFileLE.uint32(chunkHeader, 4)
            let bodyOffset = offset + 8
            let available = source.count - bodyOffset
            guard Int64(size) <= available else {
                throw .chunkBeyondEnd(id: id, offset: offset, size: size, available: available)
            }
            switch id {
            case "fmt " where format == nil:
                // Only the first 40 bytes matter; extensions beyond them are skipped.
                format = try WAVFormat(parsing: Self.read(source, at: bodyOffset, count: min(Int(size), 40)))
            case "data" where data == nil:
                data = (bodyOffset, Int64(size))
            default:
                break
            }
            // §2 (RIFF chunks): a body of odd length is followed by one pad byte.
            offset = bodyOffset + Int64(size) + Int64(size & 1)
        }
        guard let format else { throw .missingChunk("fmt ") }
        guard let data else { throw .missingChunk("data") }
        self.format = format
        self.bytes = source
        self.dataOffset = data.offset
        // A trailing partial sample frame is ignored.
        self.sampleFrameCount = Int(data.size / Int64(format.blockAlign))
    }

    /// Duration of the `data` chunk in microseconds.
    public var durationMicros: UInt64 {
        UInt64(sampleFrameCount) * 1_000_000 / UInt64(format.sampleRate)
    }

    /// Up to `maximum` sample frames, interleaved; fewer at the end of the data, none after it.
    public mutating func read(sampleFrames maximum: Int) throws(WAVError) -> [Int16] {
        let count = max(0, min(maximum, sampleFrameCount - position))
        guard count > 0 else { return [] }
        let blockAlign = format.blockAlign
        let raw = try Self.read(bytes, at: dataOffset + Int64(position * blockAlign), count: count * blockAlign)
        let frames = raw.count / blockAlign
        var samples = [Int16](repeating: 0, count: frames * format.channels)
        for index in samples.indices {
            samples[index] = Int16(bitPattern: MediaFileLE.uint16(raw, index * 2))
        }
        position += frames
        return samples
    }

    /// Moves to sample frame `sampleFrame` (clamped to the data).
    public mutating func seek(toSampleFrame sampleFrame: Int) {
        position = min(max(0, sampleFrame), sampleFrameCount)
    }

    /// Goes back to the first sample.
    public mutating func rewind() { position = 0 }

    private static func read(_ bytes: MediaFileBytes, at offset: Int64, count: Int) throws(WAVError) -> [UInt8] {
        do { return try bytes.read(at: offset, count: count) } catch { throw .io(error) }
    }
}
