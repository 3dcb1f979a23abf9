import StageWire
@testable import StageTransport

/// Canned TURN server answers for ``TURNAllocationTests``: it reads the client's requests and
/// writes the responses RFC 8656 describes, signed with the long-term key (RFC 8489 §9.2).
struct TURNFakeServer {
    var realm = "proscenium.test"
    var nonce = "nonce-1"
    var username = "alice"
    var password = "secret"
    var relayed = STUNAddress(ip: .v4(0xC000_0201), port: 49_152)   // 192.0.2.1:49152
    var mapped = STUNAddress(ip: .v4(0xCB00_7107), port: 40_000)    // 203.0.113.7:40000

    var key: [UInt8] {
        STUNMessage.longTermKey(username: username, realm: realm, password: password, md5: TURNCrypto.md5)
    }

    /// The request in a `.send` event.
    static func request(_ event: TURNAllocation.Event?) throws -> STUNMessage {
        guard case .send(let bytes) = event else { throw TestFailure("expected .send, got \(String(describing: event))") }
        return try STUNMessage(parsing: bytes)
    }

    /// 401 with REALM and NONCE (RFC 8489 §9.2.4), unsigned.
    func challenge(_ request: STUNMessage, code: Int = STUNErrorCode.unauthorized, reason: String = "Unauthorized") throws -> [UInt8] {
        var builder = STUNMessageBuilder(
            type: STUNMessageType(method: request.type.method, messageClass: .errorResponse), transactionID: request.transactionID)
        try builder.appendErrorCode(STUNErrorCode(code: code, reason: reason))
        try builder.appendRealm(realm)
        try builder.appendNonce(nonce)
        return builder.finish(fingerprint: true)
    }

    /// An error response signed with the key.
    func error(_ request: STUNMessage, code: Int, reason: String) throws -> [UInt8] {
        var builder = STUNMessageBuilder(
            type: STUNMessageType(method: request.type.method, messageClass: .errorResponse), transactionID: request.transactionID)
        try builder.appendErrorCode(STUNErrorCode(code: code, reason: reason))
        return builder.finish(integrityKey: key, hmacSHA1: TURNCrypto.hmacSHA1)
    }

    /// A success response signed with `key` (the right one unless a test forges it).
    func success(_ request: STUNMessage, key: [UInt8]? = nil, _ attributes: (inout STUNMessageBuilder) -> Void = { _ in }) -> [UInt8] {
        var builder = STUNMessageBuilder(
            type: STUNMessageType(method: request.type.method, messageClass: .successResponse), transactionID: request.transactionID)
        attributes(&builder)
        return builder.finish(integrityKey: key ?? self.key, hmacSHA1: TURNCrypto.hmacSHA1)
    }

    /// Allocate success: XOR-RELAYED-ADDRESS, XOR-MAPPED-ADDRESS, LIFETIME (RFC 8656 §7.3).
    func allocated(_ request: STUNMessage, lifetime: UInt32 = 600) -> [UInt8] {
        success(request) {
            $0.appendXORRelayedAddress(relayed)
            $0.appendXORMappedAddress(mapped)
            $0.appendLifetime(lifetime)
        }
    }

    /// A Data indication from `peer` (RFC 8656 §11.3).
    func dataIndication(from peer: STUNAddress, _ payload: [UInt8]) throws -> [UInt8] {
        var builder = STUNMessageBuilder(type: .dataIndication)
        builder.appendXORPeerAddress(peer)
        try builder.appendData(payload)
        return builder.finish()
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
