import NIOCore
@testable import StageTransport
import Testing

/// The pipe's receive path without sockets (`PipeDatagram.open`: classify, unprotect, header
/// check) fed malformed and altered bytes; its keys; what it refuses to send.
extension PipeTransportTests {
    /// Bytes the receive path must refuse without trapping; `reason` nil where libsrtp's verdict
    /// (malformed or failed authentication) is its own business.
    static let malformed: [(name: String, bytes: [UInt8], reason: MediaDropReason?)] = [
        ("empty", [], .pipeMalformed),
        ("one byte", [0x80], .pipeMalformed),
        ("two bytes", [0x80, 96], .pipeMalformed),
        ("an RTP header cut at 11 bytes", Array(rtp(sequence: 1).prefix(11)), .pipeMalformed),
        ("RTCP cut at 11 bytes", Array(receiverReport().prefix(11)), .pipeMalformed),
        ("STUN's first byte", [0x00, 0x01] + [UInt8](repeating: 0, count: 30), .pipeMalformed),
        ("ZRTP's first byte", [0x10] + [UInt8](repeating: 0, count: 30), .pipeMalformed),
        ("DTLS's first byte", [0x16, 0xFE, 0xFD] + [UInt8](repeating: 0, count: 30), .pipeMalformed),
        ("TURN ChannelData's first byte", [0x40, 0x00, 0x00, 0x10] + [UInt8](repeating: 0, count: 16), .pipeMalformed),
        ("RTP version 3", [0xC0] + Array(rtp(sequence: 1).dropFirst()), .pipeMalformed),
        ("RTP version 0 in the unknown range", [0x70] + Array(rtp(sequence: 1).dropFirst()), .pipeMalformed),
        ("an RTP header alone, no tag", Array(rtp(sequence: 1).prefix(12)), nil),
        ("RTP shorter than its tag", Array(rtp(sequence: 1).prefix(20)), nil),
        ("15 CSRCs announced, none there", [0x8F] + Array(rtp(sequence: 1).dropFirst()), nil),
        ("an extension longer than the packet", [0x90, 96, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0xBE, 0xDE, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 20), nil),
        ("plain RTP, unprotected", rtp(sequence: 1), .pipeAuthentication),
        ("plain RTCP, unprotected", receiverReport(), nil),
        ("SRTCP with a zero index, no tag", [0x81, 201, 0, 1, 0, 0, 0, 1, 0x80, 0, 0, 1], nil),
        ("a datagram as long as any read", [0x80, 96] + [UInt8](repeating: 0xEE, count: PipeTransport.maximumDatagramLength - 2), nil),
    ]

    @Test("malformed bytes are refused with their reason, and the session still opens a valid packet after them")
    func malformedBytes() throws {
        let (forA, forB) = SRTPKeyingMaterial.pipePair()
        let receiving = try SRTPSession(forA), sending = try SRTPSession(forB)
        for (name, bytes, reason) in Self.malformed {
            let opened = Self.open(bytes, with: receiving)
            if let reason {
                #expect(opened == .refused(reason), "\(name)")
            } else {
                #expect([.refused(.pipeMalformed), .refused(.pipeAuthentication)].contains(opened), "\(name): \(opened)")
            }
        }
        let valid = Self.rtp(sequence: 1)
        #expect(Self.open(try Self.protect(valid, with: sending), with: receiving) == .rtp(length: valid.count))
    }

    @Test("every one-bit change anywhere in a valid SRTP or SRTCP datagram is refused")
    func everyBitFlipIsRefused() throws {
        let (forA, forB) = SRTPKeyingMaterial.pipePair()
        let receiving = try SRTPSession(forA), sending = try SRTPSession(forB)
        let rtp = try Self.protect(Self.rtp(sequence: 100), with: sending)
        let rtcp = try Self.protect(Self.receiverReport(), rtcp: true, with: sending)
        for datagram in [rtp, rtcp] {
            for index in datagram.indices {
                for bit in 0..<8 {
                    var changed = datagram
                    changed[index] ^= 1 << bit
                    let opened = Self.open(changed, with: receiving)
                    guard case .refused = opened else {
                        Issue.record("byte \(index) bit \(bit) of a \(datagram.count)-byte datagram was taken: \(opened)")
                        continue
                    }
                }
            }
            guard case .refused = Self.open(datagram, with: receiving) else { continue }
            Issue.record("the unchanged datagram was refused after its changed copies")
        }
    }

    @Test("random datagrams in RTP's and RTCP's first-byte range are refused")
    func randomDatagrams() throws {
        let receiving = try SRTPSession(SRTPKeyingMaterial.pipePair().forA)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let length = Int.random(in: 2...1400, using: &generator)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            bytes[0] = UInt8.random(in: 128...191, using: &generator)
            let opened = Self.open(bytes, with: receiving)
            guard case .refused = opened else {
                Issue.record("random bytes taken: \(opened)")
                break
            }
        }
    }

    @Test("pipePair: mirrored halves of the profile's length (AES-GCM: 16-byte key, 12-byte salt), new each time")
    func keyPairs() {
        let (forA, forB) = SRTPKeyingMaterial.pipePair()
        #expect(forA.profile == .aeadAes128Gcm && forB.profile == .aeadAes128Gcm)
        #expect(forA.local == forB.remote && forA.remote == forB.local)
        #expect(forA.local.count == 28 && forA.remote.count == 28)
        #expect(forA.local != forA.remote, "one key per direction")
        #expect(SRTPKeyingMaterial.pipePair().forA.local != forA.local)
        let cm = SRTPKeyingMaterial.pipePair(profile: .aes128CmHmacSha1_80).forA
        #expect(cm.local.count == 30)
    }

    @Test("connect refuses keys of another length; send refuses what is not of its kind, and anything once closed")
    func sendRefusals() async throws {
        try await Self.withLoops { loops in
            let (forA, forB) = SRTPKeyingMaterial.pipePair()
            let far = try RawPipeEnd(keys: forB)
            defer { far.close() }
            let recorder = PipeRecorder()
            let a = try await Self.pipe(on: loops[0], recorder: recorder)
            let short = SRTPKeyingMaterial(profile: forA.profile, local: Array(forA.local.dropLast()), remote: forA.remote)
            await #expect(throws: PipeTransport.Failure.keyLength(expected: 28)) {
                try await a.eventLoop.submit { try a.connect(remote: far.address, keys: short) }.get()
            }
            try await a.eventLoop.submit { try a.connect(remote: far.address, keys: forA) }.get()
            let rtp = Self.rtp(sequence: 1), rtcp = Self.receiverReport()
            let results = try await a.eventLoop.submit {
                [rtcp.withUnsafeBytes { a.sendRTP($0) }, rtp.withUnsafeBytes { a.sendRTCP($0) },
                 [UInt8](rtp.prefix(11)).withUnsafeBytes { a.sendRTP($0) },
                 [UInt8](repeating: 0x80, count: MediaEngine.maximumPacketLength + 1).withUnsafeBytes { a.sendRTP($0) }]
            }.get()
            #expect(results == [false, false, false, false])
            #expect(try await Self.seen(a, recorder).notSent == [.pipeMalformed: 4])
            #expect(try await Self.seen(a, recorder).sent == 0)
            await a.close()
            #expect(try await a.eventLoop.submit { rtp.withUnsafeBytes { a.sendRTP($0) } }.get() == false)
            #expect(try await Self.seen(a, recorder).notSent[.sendNotReady] == 1)
        }
    }
}
