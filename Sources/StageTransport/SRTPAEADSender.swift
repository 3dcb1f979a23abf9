internal import COpenSSL

/// Protects the RTP we send with AEAD_AES_128_GCM (RFC 7714 §8–§11) on OpenSSL's AES-GCM: one
/// cipher context keyed once with the session key, and per packet one seal with its IV. The
/// same bytes libsrtp would write (tests compare them), without its per-packet cost here:
/// Debian's libsrtp2 seals each GCM packet through NSS, which opens and closes a PKCS#11
/// session per call under locks that every media worker shares. SRTCP, and what we receive,
/// stay with libsrtp.
final class SRTPAEADSender {
    private let context: OpaquePointer
    private let salt: [UInt8]
    /// The index state of each SSRC sent on.
    private var indices: [UInt32: SRTPSendIndex] = [:]
    /// Room for the IV, reused.
    private var iv = [UInt8](repeating: 0, count: 12)
    /// The GCM tag appended to each packet.
    static let tagLength = 16

    /// - Parameter master: the master key (16 bytes) and salt (12 bytes).
    init?(master: [UInt8]) {
        guard master.count == 28 else { return nil }
        let masterKey = Array(master[..<16]), masterSalt = Array(master[16...])
        guard let key = Self.derive(label: 0x00, count: 16, masterKey: masterKey, masterSalt: masterSalt),
              let salt = Self.derive(label: 0x02, count: 12, masterKey: masterKey, masterSalt: masterSalt),
              let context = EVP_CIPHER_CTX_new() else { return nil }
        guard EVP_EncryptInit_ex(context, EVP_aes_128_gcm(), nil, nil, nil) == 1,
              EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, 12, nil) == 1,
              EVP_EncryptInit_ex(context, nil, nil, key, nil) == 1 else {
            EVP_CIPHER_CTX_free(context)
            return nil
        }
        self.context = context
        self.salt = salt
    }

    deinit { EVP_CIPHER_CTX_free(context) }

    /// Seals the RTP packet of `length` bytes in place (the buffer needs `tagLength` spare
    /// bytes after it); returns the SRTP length.
    func protect(_ packet: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPSession.Failure) -> Int {
        guard length <= packet.count, let headerLength = Self.headerLength(UnsafeRawBufferPointer(rebasing: packet[..<length])),
              let base = packet.baseAddress else { throw .badParameter }
        precondition(packet.count >= length + Self.tagLength, "protect needs tagLength spare bytes")
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        let sequence = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
        let ssrc = UInt32(bytes[8]) << 24 | UInt32(bytes[9]) << 16 | UInt32(bytes[10]) << 8 | UInt32(bytes[11])
        guard let index = indices[ssrc, default: SRTPSendIndex()].index(of: sequence) else { throw .replay }
        // RFC 7714 §8.1: the IV is 00 00 ‖ SSRC ‖ ROC ‖ SEQ, XOR the session salt.
        let roc = UInt32(truncatingIfNeeded: index >> 16)
        let sealed = iv.withUnsafeMutableBufferPointer { iv -> Bool in
            iv[0] = salt[0]
            iv[1] = salt[1]
            for i in 0..<4 {
                iv[2 + i] = salt[2 + i] ^ UInt8(truncatingIfNeeded: ssrc >> (24 - 8 * i))
                iv[6 + i] = salt[6 + i] ^ UInt8(truncatingIfNeeded: roc >> (24 - 8 * i))
            }
            iv[10] = salt[10] ^ bytes[2]
            iv[11] = salt[11] ^ bytes[3]
            return seal(iv: iv.baseAddress!, header: bytes, headerLength: Int32(headerLength),
                        payload: bytes + headerLength, payloadLength: Int32(length - headerLength))
        }
        guard sealed else { throw .cipher }
        return length + Self.tagLength
    }

    /// The header is authenticated, the payload (padding included) encrypted in place, and the
    /// tag written after it (RFC 7714 §8.2).
    private func seal(iv: UnsafePointer<UInt8>, header: UnsafePointer<UInt8>, headerLength: Int32,
                      payload: UnsafeMutablePointer<UInt8>, payloadLength: Int32) -> Bool {
        var written: Int32 = 0
        guard EVP_EncryptInit_ex(context, nil, nil, nil, iv) == 1,
              EVP_EncryptUpdate(context, nil, &written, header, headerLength) == 1,
              payloadLength == 0 || EVP_EncryptUpdate(context, payload, &written, payload, payloadLength) == 1,
              // GCM writes nothing more here.
              EVP_EncryptFinal_ex(context, payload + Int(payloadLength), &written) == 1 else { return false }
        return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(Self.tagLength), payload + Int(payloadLength)) == 1
    }

    /// The RTP header's length (RFC 3550 §5.1: 12 bytes, the CSRCs, the extension), nil when the
    /// packet is shorter or not version 2.
    static func headerLength(_ packet: UnsafeRawBufferPointer) -> Int? {
        guard packet.count >= 12, packet[0] >> 6 == 2 else { return nil }
        var length = 12 + 4 * Int(packet[0] & 0x0F)
        if packet[0] & 0x10 != 0 {
            guard packet.count >= length + 4 else { return nil }
            length += 4 + 4 * (Int(packet[length + 2]) << 8 | Int(packet[length + 3]))
        }
        return length <= packet.count ? length : nil
    }

    /// A session key or salt (RFC 3711 §4.3.1 with the AES-CM PRF of §4.3.3, as RFC 7714 §11
    /// keeps it): AES of (master salt ‖ 00 00, the label XORed into byte 7) under the master key;
    /// the first `count` bytes (one block: at most 16).
    static func derive(label: UInt8, count: Int, masterKey: [UInt8], masterSalt: [UInt8]) -> [UInt8]? {
        guard count <= 16, masterKey.count == 16, masterSalt.count <= 14 else { return nil }
        var block = masterSalt + [UInt8](repeating: 0, count: 16 - masterSalt.count)
        block[7] ^= label
        var out = [UInt8](repeating: 0, count: 16)
        guard let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        var written: Int32 = 0
        guard EVP_EncryptInit_ex(context, EVP_aes_128_ecb(), nil, masterKey, nil) == 1, EVP_CIPHER_CTX_set_padding(context, 0) == 1,
              EVP_EncryptUpdate(context, &out, &written, block, 16) == 1, written == 16 else { return nil }
        return Array(out.prefix(count))
    }
}
