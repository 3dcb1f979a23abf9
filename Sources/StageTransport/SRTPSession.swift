internal import CSRTP
import Synchronization

/// SRTP and SRTCP (RFC 3711, RFC 7714) for one DTLS association, with libsrtp2: one inbound
/// context keyed by the peer's master key and one outbound keyed by ours. Replay protection is
/// on for what we receive; retransmissions we send (NACK answers) are allowed. RTP under
/// AEAD_AES_128_GCM is sealed and opened on OpenSSL instead (`SRTPAEAD`: the same bytes).
///
/// Packets are protected and unprotected in place: the buffer must have
/// `SRTPSession.maxTrailer` (RTP) or `maxRTCPTrailer` (RTCP) spare bytes after the packet for protection.
public final class SRTPSession: @unchecked Sendable {
    /// Bytes RTP protection may add (auth tag or GCM tag, MKI).
    public static let maxTrailer = Int(SRTP_MAX_TRAILER_LEN)
    /// Bytes RTCP protection may add: the trailer and the 4-byte E flag and SRTCP index (RFC 3711 §3.4).
    public static let maxRTCPTrailer = maxTrailer + 4

    public enum Failure: Error, Hashable, CustomStringConvertible {
        case authentication
        case replay
        case other(Int32)

        init(_ status: srtp_err_status_t) {
            switch status {
            case srtp_err_status_auth_fail: self = .authentication
            case srtp_err_status_replay_fail, srtp_err_status_replay_old: self = .replay
            default: self = .other(Int32(status.rawValue))
            }
        }

        /// libsrtp's codes for a packet too short for its header, for one too short for its tag,
        /// and for a cipher that failed.
        static let badParameter = Failure.other(Int32(srtp_err_status_bad_param.rawValue))
        static let parse = Failure.other(Int32(srtp_err_status_parse_err.rawValue))
        static let cipher = Failure.other(Int32(srtp_err_status_cipher_fail.rawValue))

        public var description: String {
            switch self {
            case .authentication: "SRTP authentication failed"
            case .replay: "SRTP replay check failed"
            case .other(let code): "libsrtp error \(code)"
            }
        }
    }

    private var inbound: srtp_t?
    private var outbound: srtp_t?
    /// The RTP we send and receive under AEAD_AES_128_GCM (nil: libsrtp's).
    private let aeadOut: SRTPAEAD?
    private let aeadIn: SRTPAEAD?
    public let profile: SRTPKeyingMaterial.Profile

    /// - Parameter libsrtpOnly: libsrtp protects and unprotects RTP under every profile (tests compare).
    public init(_ keys: SRTPKeyingMaterial, libsrtpOnly: Bool = false) throws {
        SRTPLibrary.initializeOnce()
        profile = keys.profile
        inbound = try Self.create(keys.profile, key: keys.remote, direction: ssrc_any_inbound)
        outbound = try Self.create(keys.profile, key: keys.local, direction: ssrc_any_outbound)
        let aead = keys.profile == .aeadAes128Gcm && !libsrtpOnly
        aeadOut = aead ? SRTPAEAD(master: keys.local) : nil
        aeadIn = aead ? SRTPAEAD(master: keys.remote) : nil
    }

    deinit {
        if let inbound { srtp_dealloc(inbound) }
        if let outbound { srtp_dealloc(outbound) }
    }

    private static func create(_ profile: SRTPKeyingMaterial.Profile, key: [UInt8], direction: srtp_ssrc_type_t) throws -> srtp_t? {
        var policy = srtp_policy_t()
        switch profile {
        case .aes128CmHmacSha1_80:
            // The defaults are AES_CM_128_HMAC_SHA1_80 for both (the named setter is a macro).
            srtp_crypto_policy_set_rtp_default(&policy.rtp)
            srtp_crypto_policy_set_rtcp_default(&policy.rtcp)
        case .aeadAes128Gcm:
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp)
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp)
        }
        policy.ssrc.type = direction
        policy.window_size = 1024
        policy.allow_repeat_tx = 1
        var session: srtp_t?
        let status = key.withUnsafeBufferPointer { keyBytes -> srtp_err_status_t in
            policy.key = UnsafeMutablePointer(mutating: keyBytes.baseAddress)
            return srtp_create(&session, &policy)
        }
        guard status == srtp_err_status_ok else { throw Failure(status) }
        return session
    }

    /// Unprotects an SRTP packet in place; returns the plaintext length.
    public func unprotectRTP(_ packet: UnsafeMutableRawBufferPointer, length: Int) throws(Failure) -> Int {
        if let aeadIn { return try aeadIn.unprotect(packet, length: length) }
        return try Self.transform(inbound, packet, length) { srtp_unprotect($0, $1, $2) }
    }

    /// Protects an RTP packet in place (the buffer needs `maxTrailer` spare bytes); returns the SRTP length.
    public func protectRTP(_ packet: UnsafeMutableRawBufferPointer, length: Int) throws(Failure) -> Int {
        precondition(packet.count >= length + Self.maxTrailer, "protectRTP needs maxTrailer spare bytes")
        if let aeadOut { return try aeadOut.protect(packet, length: length) }
        return try Self.transform(outbound, packet, length) { srtp_protect($0, $1, $2) }
    }

    public func unprotectRTCP(_ packet: UnsafeMutableRawBufferPointer, length: Int) throws(Failure) -> Int {
        try Self.transform(inbound, packet, length) { srtp_unprotect_rtcp($0, $1, $2) }
    }

    /// Protects an RTCP packet in place (the buffer needs `maxRTCPTrailer` spare bytes); returns the SRTCP length.
    public func protectRTCP(_ packet: UnsafeMutableRawBufferPointer, length: Int) throws(Failure) -> Int {
        precondition(packet.count >= length + Self.maxRTCPTrailer, "protectRTCP needs maxRTCPTrailer spare bytes")
        return try Self.transform(outbound, packet, length) { srtp_protect_rtcp($0, $1, $2) }
    }

    /// One libsrtp call on `packet` in place: the new length, or why it failed.
    private static func transform(_ session: srtp_t?, _ packet: UnsafeMutableRawBufferPointer, _ length: Int,
                                  _ call: (srtp_t?, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int32>) -> srtp_err_status_t) throws(Failure) -> Int {
        var length = Int32(length)
        let status = call(session, packet.baseAddress, &length)
        guard status == srtp_err_status_ok else { throw Failure(status) }
        return Int(length)
    }
}

/// `srtp_init` must run once per process before any session.
enum SRTPLibrary {
    private static let initialized = Mutex(false)

    static func initializeOnce() {
        initialized.withLock { done in
            guard !done else { return }
            srtp_init()
            done = true
        }
    }
}
