@testable import StageTransport
import Testing

/// `SRTPAEADSender` (AEAD_AES_128_GCM on OpenSSL) against libsrtp, the reference: for the same
/// keys and packets it writes the same bytes, refuses what libsrtp refuses, and libsrtp on the
/// receiving side opens what it wrote.
struct SRTPAEADSenderTests {
    /// One packet to protect: its sequence number, SSRC and shape.
    struct Packet {
        var sequence: UInt16
        var ssrc: UInt32 = 0x1234_5678
        var csrcs = 0
        /// Words of a header extension (RFC 3550 §5.3.1), if it has one.
        var extensionWords: Int?
        var payload = 100
        /// Padding bytes (RFC 3550 §5.1), the last of them their count.
        var padding: UInt8 = 0
        /// Only this many bytes of it (a header that claims more than the packet holds).
        var cut: Int?

        var bytes: [UInt8] {
            var bytes: [UInt8] = [0x80 | (padding > 0 ? 0x20 : 0) | (extensionWords != nil ? 0x10 : 0) | UInt8(csrcs), 96,
                                  UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 1, 0x5F, 0x90,
                                  UInt8(ssrc >> 24), UInt8((ssrc >> 16) & 0xFF), UInt8((ssrc >> 8) & 0xFF), UInt8(ssrc & 0xFF)]
            for index in 0..<csrcs { bytes += [0xC5, 0x5C, 0, UInt8(index)] }
            if let words = extensionWords {
                bytes += [0xBE, 0xDE, 0, UInt8(words)] + (0..<(4 * words)).map { UInt8(truncatingIfNeeded: $0 &* 37) }
            }
            bytes += (0..<payload).map { UInt8(truncatingIfNeeded: Int(sequence) &+ $0) }
            if padding > 0 { bytes += [UInt8](repeating: 0, count: Int(padding) - 1) + [padding] }
            return cut.map { Array(bytes.prefix($0)) } ?? bytes
        }
    }

    static func run(_ from: UInt16, through count: Int, ssrc: UInt32 = 0x1234_5678) -> [Packet] {
        (0..<count).map { Packet(sequence: from &+ UInt16($0), ssrc: ssrc, payload: 40 + $0 % 900) }
    }

    /// (what, the packets in the order sent).
    static let cases: [(String, [Packet])] = [
        ("in order from 1, every header shape", (1...64).map { n in
            Packet(sequence: UInt16(n), csrcs: n % 3, extensionWords: n % 4 == 0 ? nil : n % 5, payload: n % 7 == 0 ? 0 : 13 * n,
                   padding: n % 6 == 0 ? 4 : 0)
        }),
        ("the first packet past 32,768", run(40_000, through: 100)),
        ("across the sequence wrap: the rollover counter goes to 1", run(65_400, through: 400)),
        ("resent after the wrap: the counter each was first sent with", run(65_500, through: 100) + [65_530, 2, 65_535, 10].map { Packet(sequence: $0) }),
        ("more than the window behind: refused, as libsrtp refuses it", run(1, through: 3_000) + [Packet(sequence: 100), Packet(sequence: 2_000)]),
        ("two SSRCs interleaved, each its own counter", zip(run(65_000, through: 800, ssrc: 1), run(3, through: 800, ssrc: 2)).flatMap { [$0, $1] }),
        ("a jump forward, then a number behind it that wraps", [10, 40_000, 5, 6, 39_999].map { Packet(sequence: $0) }),
        ("a header longer than the packet: refused", [Packet(sequence: 1), Packet(sequence: 2, csrcs: 15, cut: 20),
                                                      Packet(sequence: 3, extensionWords: 2, cut: 16), Packet(sequence: 4, cut: 11)]),
    ]

    static func keys() -> SRTPKeyingMaterial {
        let pair = SRTPKeyingMaterial.pipePair(profile: .aeadAes128Gcm)
        return pair.forA
    }

    @Test(arguments: cases.indices)
    func sameBytesAsLibsrtp(_ index: Int) throws {
        let (what, packets) = Self.cases[index]
        let keys = Self.keys()
        let ours = try SRTPSession(keys), reference = try SRTPSession(keys, libsrtpOnly: true)
        let receiver = try SRTPSession(SRTPKeyingMaterial(profile: keys.profile, local: keys.remote, remote: keys.local))
        var opened: Set<UInt64> = []
        for (number, packet) in packets.enumerated() {
            let bytes = packet.bytes
            let mine = Result { try Self.protect(bytes, with: ours) }, theirs = Result { try Self.protect(bytes, with: reference) }
            switch (mine, theirs) {
            case (.success(let mine), .success(let theirs)):
                #expect(mine == theirs, "\(what): packet \(number) (sequence \(packet.sequence)) differs from libsrtp's")
                // The receiver opens each packet once (its replay window refuses a second copy).
                var copy = mine + [UInt8](repeating: 0, count: SRTPSession.maxTrailer)
                let key = UInt64(packet.ssrc) << 16 | UInt64(packet.sequence)
                guard opened.insert(key).inserted else { continue }
                let length = try copy.withUnsafeMutableBytes { try receiver.unprotectRTP($0, length: mine.count) }
                #expect(Array(copy.prefix(length)) == bytes, "\(what): packet \(number) opens to what was sealed")
            case (.failure(let mine), .failure(let theirs)):
                #expect((mine as? SRTPSession.Failure) == (theirs as? SRTPSession.Failure),
                        "\(what): packet \(number): \(mine) where libsrtp said \(theirs)")
            default:
                Issue.record("\(what): packet \(number) (sequence \(packet.sequence)): ours \(mine), libsrtp's \(theirs)")
            }
        }
    }

    static func protect(_ packet: [UInt8], with session: SRTPSession) throws -> [UInt8] {
        var buffer = packet + [UInt8](repeating: 0, count: SRTPSession.maxTrailer)
        let length = try buffer.withUnsafeMutableBytes { try session.protectRTP($0, length: packet.count) }
        return Array(buffer.prefix(length))
    }

    @Test("the session key and salt of RFC 7714's key derivation (libsrtp opens what they seal: above); the PRF's input block")
    func derivationBlock() throws {
        let masterKey = [UInt8](repeating: 0, count: 16), salt = (1...12).map { UInt8($0) }
        let key = try #require(SRTPAEADSender.derive(label: 0, count: 16, masterKey: masterKey, masterSalt: salt))
        let sessionSalt = try #require(SRTPAEADSender.derive(label: 2, count: 12, masterKey: masterKey, masterSalt: salt))
        #expect(key.count == 16 && sessionSalt.count == 12 && key.prefix(12) != sessionSalt[...])
        #expect(SRTPAEADSender.derive(label: 0, count: 17, masterKey: masterKey, masterSalt: salt) == nil, "one block at most")
        #expect(SRTPAEADSender(master: [1, 2, 3]) == nil, "a master key and salt of 28 bytes")
    }
}
