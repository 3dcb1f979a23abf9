/// Ready-made Binding responses for an ICE-lite agent answering connectivity checks
/// (RFC 8445 §7.3).
extension STUNMessageBuilder {
    /// A Binding success response to `request` (RFC 8445 §7.3.1.4, RFC 8489 §6.3.1.1):
    /// XOR-MAPPED-ADDRESS of the request's source, MESSAGE-INTEGRITY with the local password,
    /// and FINGERPRINT.
    /// - Parameters:
    ///   - transactionID: the request's transaction ID.
    ///   - source: the transport address the request came from.
    ///   - localPassword: the local `ice-pwd` (the key the request was checked with).
    ///   - hmacSHA1: HMAC-SHA1, e.g. swift-crypto's `HMAC<Insecure.SHA1>` (see ``STUNHMAC``).
    public static func bindingSuccess(
        transactionID: STUNTransactionID, source: STUNAddress, localPassword: String, hmacSHA1: STUNHMAC
    ) -> [UInt8] {
        var builder = STUNMessageBuilder(type: .bindingSuccess, transactionID: transactionID)
        builder.appendXORMappedAddress(source)
        return builder.finish(integrityKey: STUNMessage.shortTermKey(password: localPassword), hmacSHA1: hmacSHA1)
    }

    /// A Binding error response (RFC 8489 §6.3.1.1) with ERROR-CODE, UNKNOWN-ATTRIBUTES when
    /// given (420), MESSAGE-INTEGRITY when a password is given (RFC 8445 §7.3.1.1: a 487 role
    /// conflict is integrity-protected; a 400 or 401 cannot be), and FINGERPRINT.
    public static func bindingError(
        transactionID: STUNTransactionID, error: STUNErrorCode, unknownAttributes: [STUNAttributeType] = [],
        localPassword: String? = nil, hmacSHA1: STUNHMAC? = nil
    ) throws(STUNError) -> [UInt8] {
        var builder = STUNMessageBuilder(type: .bindingError, transactionID: transactionID)
        try builder.appendErrorCode(error)
        if !unknownAttributes.isEmpty { try builder.appendUnknownAttributes(unknownAttributes) }
        if let localPassword, let hmacSHA1 {
            builder.appendMessageIntegrity(key: STUNMessage.shortTermKey(password: localPassword), hmacSHA1: hmacSHA1)
        }
        return builder.finish(fingerprint: true)
    }
}
