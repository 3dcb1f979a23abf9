internal import COpenSSL
import StageWire

/// SRTP under AEAD_AES_128_GCM (RFC 7714 §8–§11) for one master key on OpenSSL's AES-GCM: the
/// RTP sent under our key is sealed, the RTP received under the peer's opened. A cipher context
/// keyed once with the session key, and per packet one seal or open with its IV. The same bytes
/// and the same refusals as libsrtp (the tests compare them), without its per-packet cost
/// here: Debian's libsrtp2 runs each GCM packet through NSS (`PK11_Encrypt`), whose locks and
/// allocations per call every media worker shares. SRTCP stays with libsrtp.
final class SRTPAEAD {
    private let key: [UInt8]
    private let salt: [UInt8]
    /// Made on first use: a session seals, or opens, with one instance.
    private var sealer: OpaquePointer?
    private var opener: OpaquePointer?
    /// Each SSRC's indices: sent on, or received and authenticated.
    private var windows: [UInt32: SRTPIndexWindow] = [:]
    /// At most this many SSRCs are received on (a publisher sends a few, a pipe one per layer of
    /// each piped track): a peer cannot make the table grow without end.
    static let maxReceivedSSRCs = 1_024
    /// Room for the IV, reused.
    private var iv = [UInt8](repeating: 0, count: 12)
    /// The GCM tag after each packet.
    static let tagLength = 16

    /// - Parameter master: the master key (16 bytes) and salt (12 bytes).
    init?(master: [UInt8]) {
        guard master.count == 28 else { return nil }
        let masterKey = Array(master[..<16]), masterSalt = Array(master[16...])
        guard let key = Self.derive(label: 0x00, count: 16, masterKey: masterKey, masterSalt: masterSalt),
              let salt = Self.derive(label: 0x02, count: 12, masterKey: masterKey, masterSalt: masterSalt) else { return nil }
        self.key = key
        self.salt = salt
    }

    deinit {
        EVP_CIPHER_CTX_free(sealer)
        EVP_CIPHER_CTX_free(opener)
    }

    /// Seals the RTP packet of `length` bytes in place (the buffer needs `tagLength` spare
    /// bytes after it); returns the SRTP length. A packet sent again is sealed as before (libsrtp's
    /// `allow_repeat_tx`); one a whole window behind the highest sent is refused (`.replay`).
    func protect(_ packet: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPSession.Failure) -> Int {
        guard length <= packet.count, let header = Self.header(UnsafeRawBufferPointer(rebasing: packet[..<length])),
              let bytes = packet.baseAddress?.assumingMemoryBound(to: UInt8.self) else { throw .badParameter }
        precondition(packet.count >= length + Self.tagLength, "protect needs tagLength spare bytes")
        guard let index = windows[header.ssrc, default: SRTPIndexWindow()].send(header.sequence) else { throw .replay }
        guard let sealer = sealer ?? makeContext(encrypting: true) else { throw .cipher }
        self.sealer = sealer
        setIV(ssrc: header.ssrc, index: index)
        var written: Int32 = 0
        let payload = bytes + header.length, payloadLength = Int32(length - header.length)
        // The header is authenticated, the payload (padding included) encrypted (RFC 7714 §8.2).
        guard EVP_EncryptInit_ex(sealer, nil, nil, nil, iv) == 1,
              EVP_EncryptUpdate(sealer, nil, &written, bytes, Int32(header.length)) == 1,
              payloadLength == 0 || EVP_EncryptUpdate(sealer, payload, &written, payload, payloadLength) == 1,
              EVP_EncryptFinal_ex(sealer, payload + Int(payloadLength), &written) == 1,   // GCM: nothing more
              EVP_CIPHER_CTX_ctrl(sealer, EVP_CTRL_GCM_GET_TAG, Int32(Self.tagLength), payload + Int(payloadLength)) == 1
        else { throw .cipher }
        return length + Self.tagLength
    }

    /// Opens the SRTP packet of `length` bytes in place; returns the RTP length. Refused: a
    /// packet seen already or a window behind (`.replay`), one whose tag does not verify
    /// (`.authentication`), one of an SSRC past `maxReceivedSSRCs` (`.badParameter`); only an
    /// authenticated packet moves its SSRC's window.
    func unprotect(_ packet: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPSession.Failure) -> Int {
        guard length <= packet.count, let header = Self.header(UnsafeRawBufferPointer(rebasing: packet[..<length])),
              let bytes = packet.baseAddress?.assumingMemoryBound(to: UInt8.self) else { throw .badParameter }
        guard length - header.length >= Self.tagLength else { throw .parse }
        guard windows[header.ssrc] != nil || windows.count < Self.maxReceivedSSRCs else { throw .badParameter }
        // No copy of the window outlives this line: recording the packet below changes it in place.
        let (index, delta, verdict) = (windows[header.ssrc] ?? SRTPIndexWindow()).estimate(header.sequence)
        guard verdict == .new else { throw .replay }
        guard let opener = opener ?? makeContext(encrypting: false) else { throw .cipher }
        self.opener = opener
        setIV(ssrc: header.ssrc, index: index)
        var written: Int32 = 0
        let payload = bytes + header.length, payloadLength = Int32(length - header.length - Self.tagLength)
        guard EVP_DecryptInit_ex(opener, nil, nil, nil, iv) == 1,
              EVP_DecryptUpdate(opener, nil, &written, bytes, Int32(header.length)) == 1,
              payloadLength == 0 || EVP_DecryptUpdate(opener, payload, &written, payload, payloadLength) == 1,
              EVP_CIPHER_CTX_ctrl(opener, EVP_CTRL_GCM_SET_TAG, Int32(Self.tagLength), payload + Int(payloadLength)) == 1
        else { throw .cipher }
        guard EVP_DecryptFinal_ex(opener, payload + Int(payloadLength), &written) == 1 else { throw .authentication }
        windows[header.ssrc, default: SRTPIndexWindow()].add(index: index, delta: delta)
        return length - Self.tagLength
    }

    /// RFC 7714 §8.1: the IV is 00 00 ‖ SSRC ‖ ROC ‖ SEQ, XOR the session salt.
    private func setIV(ssrc: UInt32, index: UInt64) {
        let roc = UInt32(truncatingIfNeeded: index >> 16), sequence = UInt16(truncatingIfNeeded: index)
        iv[0] = salt[0]
        iv[1] = salt[1]
        for i in 0..<4 {
            iv[2 + i] = salt[2 + i] ^ UInt8(truncatingIfNeeded: ssrc >> (24 - 8 * i))
            iv[6 + i] = salt[6 + i] ^ UInt8(truncatingIfNeeded: roc >> (24 - 8 * i))
        }
        iv[10] = salt[10] ^ UInt8(sequence >> 8)
        iv[11] = salt[11] ^ UInt8(sequence & 0xFF)
    }

    private func makeContext(encrypting: Bool) -> OpaquePointer? {
        guard let context = EVP_CIPHER_CTX_new() else { return nil }
        let ready = encrypting
            ? EVP_EncryptInit_ex(context, EVP_aes_128_gcm(), nil, nil, nil) == 1
                && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, 12, nil) == 1
                && EVP_EncryptInit_ex(context, nil, nil, key, nil) == 1
            : EVP_DecryptInit_ex(context, EVP_aes_128_gcm(), nil, nil, nil) == 1
                && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, 12, nil) == 1
                && EVP_DecryptInit_ex(context, nil, nil, key, nil) == 1
        guard ready else {
            EVP_CIPHER_CTX_free(context)
            return nil
        }
        return context
    }

    /// An RTP header (`RTPHeader.payloadStart`): its length, sequence number and SSRC; nil when
    /// the packet is shorter or not version 2.
    static func header(_ packet: UnsafeRawBufferPointer) -> (length: Int, sequence: UInt16, ssrc: UInt32)? {
        guard packet.count >= RTPHeader.fixedSize, packet[0] >> 6 == 2, let length = RTPHeader.payloadStart(packet) else { return nil }
        return (length, UInt16(bigEndian: packet.loadUnaligned(fromByteOffset: 2, as: UInt16.self)),
                UInt32(bigEndian: packet.loadUnaligned(fromByteOffset: 8, as: UInt32.self)))
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
