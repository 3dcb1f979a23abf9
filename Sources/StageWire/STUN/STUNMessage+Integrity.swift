/// An HMAC over `data` with `key`, returning the full MAC: HMAC-SHA1 (20 bytes) for
/// MESSAGE-INTEGRITY, HMAC-SHA256 (32 bytes) for MESSAGE-INTEGRITY-SHA256.
///
/// StageWire has no cryptography; callers pass swift-crypto's, e.g.
/// ```swift
/// import Crypto
/// let hmacSHA1: STUNHMAC = { key, data in
///     Array(HMAC<Insecure.SHA1>.authenticationCode(for: data, using: SymmetricKey(data: key)))
/// }
/// ```
public typealias STUNHMAC = (_ key: [UInt8], _ data: UnsafeRawBufferPointer) -> [UInt8]

/// MESSAGE-INTEGRITY (RFC 8489 §14.5), MESSAGE-INTEGRITY-SHA256 (§14.6) and FINGERPRINT (§14.7).
extension STUNMessage {
    /// §14.7: the CRC-32 is XORed with this ("STUN" in ASCII).
    public static let fingerprintXOR: UInt32 = 0x5354_554E

    /// The short-term credential key of §9.1.1: the password's UTF-8 bytes. ICE uses short-term
    /// credentials (RFC 8445 §9.2.2) with `ice-pwd` as the password; its characters are ASCII
    /// (RFC 8839 §5.4), so OpaqueString/SASLprep changes nothing and is not applied.
    public static func shortTermKey(password: String) -> [UInt8] { Array(password.utf8) }

    /// Whether MESSAGE-INTEGRITY is present and matches (§14.5): the HMAC-SHA1 of the message up
    /// to the attribute, with the header's length field set as if the message ended right after
    /// MESSAGE-INTEGRITY. Returns `false` when the attribute is absent.
    /// - Parameters:
    ///   - key: for ICE, ``shortTermKey(password:)`` of the local `ice-pwd`.
    ///   - hmacSHA1: HMAC-SHA1, e.g. `HMAC<Insecure.SHA1>` from swift-crypto (see ``STUNHMAC``).
    public func verifyIntegrity(key: [UInt8], hmacSHA1: STUNHMAC) -> Bool {
        guard let offset = integrityOffset else { return false }
        return verify(macAt: offset, macLength: 20, key: key, hmac: hmacSHA1)
    }

    /// Whether MESSAGE-INTEGRITY-SHA256 is present and matches (§14.6); a truncated MAC (16–28
    /// bytes) is compared over its length. Returns `false` when the attribute is absent.
    public func verifyIntegritySHA256(key: [UInt8], hmacSHA256: STUNHMAC) -> Bool {
        guard let offset = integritySHA256Offset else { return false }
        return verify(macAt: offset, macLength: Int(bytes.readUInt16(at: offset + 2)), key: key, hmac: hmacSHA256)
    }

    /// Whether the message carries FINGERPRINT; parsing already rejected a wrong one.
    public var hasFingerprint: Bool { fingerprintOffset != nil }

    /// The FINGERPRINT value of `bytes[0..<offset]` (§14.7). The header's length must already
    /// count the FINGERPRINT attribute.
    static func fingerprint(of bytes: [UInt8], upTo offset: Int) -> UInt32 {
        bytes.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[..<offset])) } ^ fingerprintXOR
    }

    func verify(macAt offset: Int, macLength: Int, key: [UInt8], hmac: STUNHMAC) -> Bool {
        let expected = Self.mac(of: bytes, upTo: offset, macLength: macLength, key: key, hmac: hmac)
        guard expected.count >= macLength else { return false }
        // Constant-time comparison: no early exit on the first differing byte.
        var difference: UInt8 = 0
        for index in 0..<macLength {
            difference |= expected[index] ^ bytes[offset + 4 + index]
        }
        return difference == 0
    }

    /// The MAC of `bytes[0..<offset]` with the length field adjusted to end after an integrity
    /// attribute of `macLength` bytes at `offset` (§14.5, §14.6). Copies the prefix to the stack,
    /// not the heap, for messages of ordinary size.
    static func mac(of bytes: [UInt8], upTo offset: Int, macLength: Int, key: [UInt8], hmac: STUNHMAC) -> [UInt8] {
        let adjustedLength = UInt16(truncatingIfNeeded: offset - headerLength + 4 + STUNAttribute.padded(macLength))
        return withUnsafeTemporaryAllocation(byteCount: offset, alignment: 1) { scratch in
            bytes.withUnsafeBytes { source in
                scratch.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[..<offset]))
            }
            scratch[2] = UInt8(truncatingIfNeeded: adjustedLength >> 8)
            scratch[3] = UInt8(truncatingIfNeeded: adjustedLength)
            return hmac(key, UnsafeRawBufferPointer(scratch))
        }
    }
}
