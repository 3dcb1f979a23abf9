public import Foundation

/// Encodes and decodes signaling frames with stable key order, so golden fixtures compare byte-for-byte.
public struct SignalCodec: Sendable {
    public init() {}

    public func encode(_ message: ServerMessage) throws -> String { try encodeValue(message) }
    public func encode(_ message: ClientMessage) throws -> String { try encodeValue(message) }

    public func decodeClient(_ text: String) throws -> ClientMessage { try decodeValue(text) }
    public func decodeServer(_ text: String) throws -> ServerMessage { try decodeValue(text) }

    /// Shared coders: configured once, then only read, which Foundation's coders allow from any thread.
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
    private static let decoder = JSONDecoder()

    private func encodeValue(_ value: some Encodable) throws -> String {
        String(decoding: try Self.encoder.encode(value), as: UTF8.self)
    }

    private func decodeValue<T: Decodable>(_ text: String) throws -> T {
        try Self.decoder.decode(T.self, from: Data(text.utf8))
    }
}
