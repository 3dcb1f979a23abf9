import Foundation

/// Encodes and decodes signaling frames with stable key order, so golden fixtures compare byte-for-byte.
///
/// Two paths with one meaning. The fast path (`JSON/`) parses and writes the protocol's JSON by
/// hand: a fan-out to 500 clients decodes and encodes every message hundreds of times, and
/// Foundation's `Codable` coders were a fifth of a client's CPU. The `Codable` conformances
/// remain the definition: the fast path writes exactly what `JSONEncoder` writes, and any text it
/// declines to read (a fraction where an integer belongs, a repeated key, a wrong field) goes to
/// `JSONDecoder`, which either reads it or throws the error that names the field.
public struct SignalCodec: Sendable {
    public init() {}

    public func encode(_ message: ServerMessage) -> String { message.fastJSON }
    public func encode(_ message: ClientMessage) -> String { message.fastJSON }

    public func decodeClient(_ text: String) throws -> ClientMessage {
        if let message = try? ClientMessage(fastJSON: text) { return message }
        return try foundationDecode(text)
    }

    public func decodeServer(_ text: String) throws -> ServerMessage {
        if let message = try? ServerMessage(fastJSON: text) { return message }
        return try foundationDecode(text)
    }

    /// Shared coders: configured once, then only read, which Foundation's coders allow from any thread.
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
    private static let decoder = JSONDecoder()

    /// The `Codable` definition of the wire format (tests compare the fast path with it).
    func foundationEncode(_ value: some Encodable) throws -> String {
        String(decoding: try Self.encoder.encode(value), as: UTF8.self)
    }

    func foundationDecode<T: Decodable>(_ text: String) throws -> T {
        try Self.decoder.decode(T.self, from: Data(text.utf8))
    }
}
