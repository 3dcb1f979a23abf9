/// `a=fingerprint:<hash-func> <fingerprint>` (RFC 8122 §5): the hash of the DTLS certificate,
/// uppercase hex bytes joined by colons.
public struct SDPFingerprint: SDPAttributeValue, CustomStringConvertible {
    public static let attributeName = "fingerprint"

    /// `sha-256` in WebRTC (RFC 8827 §6.5 requires it); kept as written.
    public var hashFunction: String
    public var bytes: [UInt8]

    public init(hashFunction: String = "sha-256", bytes: [UInt8]) {
        self.hashFunction = hashFunction
        self.bytes = bytes
    }

    public init(sdpValue: Substring) throws(SDPValueError) {
        let fields = sdpValue.sdpFields
        guard fields.count == 2 else {
            throw SDPValueError("fingerprint needs <hash-func> <hex:hex:…> (RFC 8122 §5)")
        }
        hashFunction = String(fields[0])
        bytes = []
        for pair in fields[1].split(separator: ":", omittingEmptySubsequences: false) {
            guard pair.utf8.count == 2, let byte = UInt8(pair, radix: 16), pair.utf8.allSatisfy(isHexDigit) else {
                throw SDPValueError("fingerprint must be pairs of hex digits joined by ':' (RFC 8122 §5)")
            }
            bytes.append(byte)
        }
    }

    public var sdpValue: String { "\(hashFunction) \(hex)" }

    /// The digest as uppercase hex pairs joined by colons, `AB:CD:…`.
    public var hex: String {
        let digits: [Character] = Array("0123456789ABCDEF")
        return bytes.map { String([digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]]) }.joined(separator: ":")
    }

    public var description: String { sdpValue }
}

private func isHexDigit(_ byte: UInt8) -> Bool {
    (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
        || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F"))
}

/// `a=setup:` (RFC 4145 §4, used by DTLS-SRTP per RFC 5763 §5): which side opens the connection,
/// here which side is the DTLS client.
public enum SDPSetupRole: String, SDPAttributeValue, CaseIterable {
    /// The offerer's choice in JSEP: either role (RFC 8842 §5.2).
    case actpass
    /// This side is the DTLS client.
    case active
    /// This side is the DTLS server.
    case passive
    /// No connection now (not used by WebRTC).
    case holdconn

    public static let attributeName = "setup"

    public init(sdpValue: Substring) throws(SDPValueError) {
        guard let role = SDPSetupRole(rawValue: String(sdpValue)) else {
            throw SDPValueError("setup must be actpass, active, passive or holdconn (RFC 4145 §4)")
        }
        self = role
    }

    public var sdpValue: String { rawValue }
}

/// The media direction attributes (RFC 8866 §6.7): `a=sendrecv`, `a=sendonly`, `a=recvonly`,
/// `a=inactive`. Also the optional direction of `a=extmap` (RFC 8285 §8).
public enum SDPDirection: String, Hashable, Sendable, CaseIterable {
    case sendrecv, sendonly, recvonly, inactive

    /// The direction the other side sees: sendonly ↔ recvonly.
    public var reversed: SDPDirection {
        switch self {
        case .sendonly: .recvonly
        case .recvonly: .sendonly
        case .sendrecv, .inactive: self
        }
    }
}

/// `a=group:<semantics> <mid> …` (RFC 5888 §5); `BUNDLE` groups (RFC 8843 §7) list the mids that
/// share one transport, the first being the tagged m-section.
public struct SDPGroup: SDPAttributeValue {
    public static let attributeName = "group"

    public var semantics: String
    public var mids: [String]

    public init(semantics: String = "BUNDLE", mids: [String]) {
        self.semantics = semantics
        self.mids = mids
    }

    public init(sdpValue: Substring) throws(SDPValueError) {
        let fields = sdpValue.sdpFields
        guard let first = fields.first else { throw SDPValueError("group needs semantics, e.g. BUNDLE (RFC 5888 §5)") }
        semantics = String(first)
        mids = fields.dropFirst().map(String.init)
    }

    public var sdpValue: String { ([semantics] + mids).joined(separator: " ") }
}

/// `a=msid:<stream id> [<track id>]` (RFC 8830 §2): the MediaStream (`-` for none) and track.
public struct SDPMediaStreamID: SDPAttributeValue {
    public static let attributeName = "msid"

    public var streamID: String
    public var trackID: String?

    public init(streamID: String, trackID: String? = nil) {
        self.streamID = streamID
        self.trackID = trackID
    }

    public init(sdpValue: Substring) throws(SDPValueError) {
        let fields = sdpValue.sdpFields
        guard (1...2).contains(fields.count) else {
            throw SDPValueError("msid needs <stream id> [<track id>] (RFC 8830 §2)")
        }
        streamID = String(fields[0])
        trackID = fields.count == 2 ? String(fields[1]) : nil
    }

    public var sdpValue: String { trackID.map { "\(streamID) \($0)" } ?? streamID }
}
