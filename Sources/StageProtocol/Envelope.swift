/// The two fields every signaling message starts with: the protocol major version `v` and the
/// message `type`. The message's own fields sit beside them in the same JSON object.
enum Envelope {
    enum Keys: String, CodingKey { case v, type }

    static func decodeType(from decoder: any Decoder) throws -> String {
        let container = try decoder.container(keyedBy: Keys.self)
        let version = try container.decode(Int.self, forKey: .v)
        guard version == ProtocolVersion.major else {
            throw SignalDecodingError.unsupportedVersion(version)
        }
        return try container.decode(String.self, forKey: .type)
    }

    static func encode(type: String, to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(ProtocolVersion.major, forKey: .v)
        try container.encode(type, forKey: .type)
    }

    static func unknownType(_ type: String, decoder: any Decoder) -> any Error {
        SignalDecodingError.unknownType(type)
    }
}

/// Why a signaling frame could not be read.
public enum SignalDecodingError: Error, Hashable, CustomStringConvertible {
    case unsupportedVersion(Int)
    case unknownType(String)

    public var description: String {
        switch self {
        case .unsupportedVersion(let v): "protocol version \(v) is not supported (this side speaks \(ProtocolVersion.major))"
        case .unknownType(let t): "unknown message type '\(t)'"
        }
    }
}
