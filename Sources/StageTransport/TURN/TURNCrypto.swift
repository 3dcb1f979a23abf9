import Crypto
import StageWire

/// swift-crypto's MD5 and HMAC-SHA1 in the shapes StageWire's STUN code takes: the long-term
/// credential key (RFC 8489 §9.2.2) and MESSAGE-INTEGRITY (§14.5).
enum TURNCrypto {
    static func md5(_ data: UnsafeRawBufferPointer) -> [UInt8] {
        Array(Insecure.MD5.hash(data: data))
    }

    static func hmacSHA1(_ key: [UInt8], _ data: UnsafeRawBufferPointer) -> [UInt8] {
        Array(HMAC<Insecure.SHA1>.authenticationCode(for: data, using: SymmetricKey(data: key)))
    }
}
