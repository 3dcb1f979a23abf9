import Foundation

/// The framing of a compositor's output: each chunk is one JSON header line (UTF-8, `\n`
/// terminated, at most `maxHeaderBytes`) naming its kind, rendition, timing and `size`,
/// followed by exactly `size` bytes. Logs go to stderr; stdout carries only this.
public enum HLSChunkStream {
    public static let maxHeaderBytes = 4096
    /// Larger than any part or init section a 1080p60 8.5 Mbps rendition produces.
    public static let maxChunkBytes = 16 << 20
    public static let maxRenditions = 8

    /// Serializes one chunk (header line then bytes).
    public static func encode(_ chunk: HLSChunk) -> [UInt8] {
        let header = HLSChunkHeader(kind: chunk.kind, rendition: chunk.rendition,
                                    duration: chunk.kind == .part ? chunk.duration : nil,
                                    independent: chunk.kind == .part ? chunk.independent : nil,
                                    startsSegment: chunk.kind == .part ? chunk.startsSegment : nil,
                                    endsSegment: chunk.kind == .part ? chunk.endsSegment : nil,
                                    programDateMillis: chunk.kind == .part ? chunk.programDateMillis : nil,
                                    size: chunk.bytes.count)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var out = Array((try? encoder.encode(header)) ?? Data())
        out.append(0x0A)
        out += chunk.bytes
        return out
    }
}

/// Why a compositor's output stream cannot be read further.
public enum HLSChunkStreamError: Error, Equatable, CustomStringConvertible {
    case headerTooLong(limit: Int)
    case malformedHeader(String)
    case invalidField(String)

    public var description: String {
        switch self {
        case .headerTooLong(let limit): "chunk header: longer than \(limit) bytes without a newline"
        case .malformedHeader(let why): "chunk header: \(why)"
        case .invalidField(let why): "chunk header: \(why)"
        }
    }
}

/// Incremental reader of `HLSChunkStream` framing: feed bytes as they arrive, take whole chunks.
/// A framing error is final: the stream is out of step and must be closed.
public struct HLSChunkReader {
    private var buffer: [UInt8] = []
    private var start = 0
    private var pending: HLSChunkHeader?

    public init() {}

    /// Appends bytes and returns every chunk now complete, in order.
    public mutating func feed(_ bytes: some Sequence<UInt8>) throws(HLSChunkStreamError) -> [HLSChunk] {
        buffer.append(contentsOf: bytes)
        var chunks: [HLSChunk] = []
        while let chunk = try next() { chunks.append(chunk) }
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        return chunks
    }

    private mutating func next() throws(HLSChunkStreamError) -> HLSChunk? {
        if pending == nil {
            let available = buffer.count - start
            guard let newline = buffer[start...].firstIndex(of: 0x0A) else {
                if available > HLSChunkStream.maxHeaderBytes { throw .headerTooLong(limit: HLSChunkStream.maxHeaderBytes) }
                return nil
            }
            guard newline - start <= HLSChunkStream.maxHeaderBytes else { throw .headerTooLong(limit: HLSChunkStream.maxHeaderBytes) }
            let line = Data(buffer[start..<newline])
            start = newline + 1
            pending = try Self.header(line)
        }
        guard let header = pending, buffer.count - start >= header.size else { return nil }
        let bytes = Array(buffer[start..<start + header.size])
        start += header.size
        pending = nil
        return HLSChunk(kind: header.kind, rendition: header.rendition, duration: header.duration ?? 0,
                        independent: header.independent ?? false, startsSegment: header.startsSegment ?? false,
                        endsSegment: header.endsSegment ?? false,
                        programDateMillis: header.programDateMillis ?? 0, bytes: bytes)
    }

    static func header(_ line: Data) throws(HLSChunkStreamError) -> HLSChunkHeader {
        let header: HLSChunkHeader
        do {
            header = try JSONDecoder().decode(HLSChunkHeader.self, from: line)
        } catch {
            throw .malformedHeader("not a JSON object with kind, rendition and size")
        }
        guard (0..<HLSChunkStream.maxRenditions).contains(header.rendition) else {
            throw .invalidField("rendition: must be 0–\(HLSChunkStream.maxRenditions - 1), got \(header.rendition)")
        }
        guard (0...HLSChunkStream.maxChunkBytes).contains(header.size) else {
            throw .invalidField("size: must be 0–\(HLSChunkStream.maxChunkBytes), got \(header.size)")
        }
        if header.kind == .part {
            guard let duration = header.duration, duration.isFinite, duration > 0, duration <= 60 else {
                throw .invalidField("duration: a part needs a duration in (0, 60] seconds")
            }
            guard header.size > 0 else { throw .invalidField("size: a part has bytes") }
            if header.startsSegment == true && header.independent != true {
                throw .invalidField("independent: a part that starts a segment must be independent")
            }
        }
        return header
    }
}
