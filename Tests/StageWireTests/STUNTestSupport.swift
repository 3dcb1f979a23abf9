import Crypto
import Foundation
import StageWire

/// HMAC-SHA1 from swift-crypto, the function callers pass to STUN integrity (RFC 8489 §14.5).
func hmacSHA1(_ key: [UInt8], _ data: UnsafeRawBufferPointer) -> [UInt8] {
    Array(HMAC<Insecure.SHA1>.authenticationCode(for: data, using: SymmetricKey(data: key)))
}

/// HMAC-SHA256 from swift-crypto, for MESSAGE-INTEGRITY-SHA256 (RFC 8489 §14.6).
func hmacSHA256(_ key: [UInt8], _ data: UnsafeRawBufferPointer) -> [UInt8] {
    Array(HMAC<SHA256>.authenticationCode(for: data, using: SymmetricKey(data: key)))
}

/// Runs `body` and returns the STUNError it throws, or nil.
func stunError<T>(_ body: () throws(STUNError) -> T) -> STUNError? { thrownError(STUNError.self, body) }

/// `bytes` with the STUN length field (bytes 2–3) set to `length`.
func withLength(_ bytes: [UInt8], _ length: Int) -> [UInt8] {
    var copy = bytes
    copy[2] = UInt8(length >> 8)
    copy[3] = UInt8(length & 0xFF)
    return copy
}
