/// MD5 of `data` (16 bytes), for the long-term credential key of RFC 8489 §9.2.2.
///
/// StageWire has no cryptography; callers pass swift-crypto's, e.g.
/// ```swift
/// import Crypto
/// let md5: STUNMD5 = { data in Array(Insecure.MD5.hash(data: data)) }
/// ```
public typealias STUNMD5 = (_ data: UnsafeRawBufferPointer) -> [UInt8]

/// The long-term credential mechanism (RFC 8489 §9.2), which TURN uses (RFC 8656 §5).
extension STUNMessage {
    /// The long-term key of RFC 8489 §9.2.2 for MESSAGE-INTEGRITY:
    /// `MD5(username ":" OpaqueString(realm) ":" OpaqueString(password))`.
    ///
    /// The strings are used as given (UTF-8): OpaqueString (RFC 8265 §4.2) leaves ASCII without
    /// spaces unchanged, which is what TURN deployments configure; a caller with other
    /// characters passes them already prepared (RFC 5769 §2.4's "TheMatrIX" is the prepared form
    /// of "The\u{AD}M\u{AA}tr\u{2168}").
    /// - Parameters:
    ///   - md5: MD5, e.g. swift-crypto's `Insecure.MD5` (see ``STUNMD5``).
    public static func longTermKey(username: String, realm: String, password: String, md5: STUNMD5) -> [UInt8] {
        let input = Array("\(username):\(realm):\(password)".utf8)
        return input.withUnsafeBytes { md5($0) }
    }

    /// REALM (RFC 8489 §14.9): the server's realm, echoed in authenticated requests.
    public var realm: String? {
        get throws(STUNError) { try text(.realm) }
    }

    /// NONCE (RFC 8489 §14.10): the server's nonce, echoed until a 438 replaces it.
    public var nonce: String? {
        get throws(STUNError) { try text(.nonce) }
    }
}

extension STUNMessageBuilder {
    /// REALM (RFC 8489 §14.9): at most 763 bytes.
    public mutating func appendRealm(_ realm: String) throws(STUNError) {
        try appendText(.realm, realm)
    }

    /// NONCE (RFC 8489 §14.10): at most 763 bytes.
    public mutating func appendNonce(_ nonce: String) throws(STUNError) {
        try appendText(.nonce, nonce)
    }

    /// USERNAME, REALM and NONCE, the attributes an authenticated request carries before
    /// MESSAGE-INTEGRITY (RFC 8489 §9.2.4). Finish with ``finish(integrityKey:hmacSHA1:fingerprint:)``
    /// and ``STUNMessage/longTermKey(username:realm:password:md5:)``.
    public mutating func appendLongTermCredentials(username: String, realm: String, nonce: String) throws(STUNError) {
        try appendUsername(username)
        try appendNonce(nonce)
        try appendRealm(realm)
    }
}
