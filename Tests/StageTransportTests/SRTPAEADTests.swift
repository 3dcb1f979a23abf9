@testable import StageTransport
import Testing

/// `SRTPAEAD` (AEAD_AES_128_GCM on OpenSSL) against libsrtp, the reference. Sending: for the
/// same keys and packets it writes the same bytes and refuses what libsrtp refuses. Receiving:
/// of the same datagrams — in order, resent, reordered, old, changed, cut — it opens and
/// refuses the same ones as libsrtp, to the same bytes.
struct SRTPAEADTests {
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
        let receiver = try SRTPSession(Self.mirrored(keys), libsrtpOnly: true)
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

    static func mirrored(_ keys: SRTPKeyingMaterial) -> SRTPKeyingMaterial {
        SRTPKeyingMaterial(profile: keys.profile, local: keys.remote, remote: keys.local)
    }

    /// One datagram to receive, made from the packets protected in order by libsrtp.
    enum Arrival {
        /// The datagram of the packet numbered so in the sending order.
        case packet(Int)
        /// That datagram with byte `at` (counted from its end when negative) XORed with 0x01.
        case changed(Int, at: Int)
        /// That datagram without its last `bytes`.
        case cut(Int, bytes: Int)
    }

    /// (what, the packets sent, the order datagrams arrive in).
    static let arrivals: [(String, [Packet], [Arrival])] = [
        ("in order, every header shape", cases[0].1, cases[0].1.indices.map { .packet($0) }),
        ("each twice: the second a replay", run(1, through: 20), (0..<20).flatMap { [.packet($0), .packet($0)] }),
        ("reordered within the window", run(100, through: 40), (0..<40).map { .packet($0 % 2 == 0 ? $0 + 1 : $0 - 1) }),
        ("across the wrap, late ones from before it", run(65_300, through: 500),
         (0..<500).map { .packet($0) } + [.packet(230), .packet(480)]),
        ("more than the window late", run(1, through: 1_500), (10..<1_500).map { .packet($0) } + [.packet(3), .packet(600)]),
        ("changed in the payload, the header, the tag: refused, and the real one still taken",
         run(1, through: 4), [.changed(0, at: 20), .packet(0), .changed(1, at: 3), .changed(1, at: 9), .packet(1),
                              .changed(2, at: -1), .changed(2, at: -16), .packet(2), .packet(3)]),
        ("a forged SSRC first: no window made for it", run(1, through: 3), [.changed(0, at: 11), .packet(0), .packet(1), .packet(2)]),
        ("cut: shorter than the tag, than the header", [Packet(sequence: 1, payload: 4), Packet(sequence: 2, csrcs: 2, payload: 0)],
         [.cut(0, bytes: 10), .cut(0, bytes: 40), .cut(1, bytes: 16), .cut(1, bytes: 20), .packet(0), .packet(1)]),
        ("two SSRCs interleaved across a wrap", zip(run(65_500, through: 100, ssrc: 1), run(7, through: 100, ssrc: 2)).flatMap { [$0, $1] },
         (0..<200).map { .packet($0) } + [.packet(150), .packet(151)]),
        ("a jump forward past half the numbers, over the wrap, then an old one", [10, 40_000, 5, 6].map { Packet(sequence: $0) },
         [.packet(0), .packet(1), .packet(2), .packet(3), .packet(1)]),
    ]

    @Test(arguments: arrivals.indices)
    func opensWhatLibsrtpOpens(_ index: Int) throws {
        let (what, packets, arrivals) = Self.arrivals[index]
        let keys = Self.keys()
        let sender = try SRTPSession(keys, libsrtpOnly: true)
        let datagrams = try packets.map { try Self.protect($0.bytes, with: sender) }
        let ours = try SRTPSession(Self.mirrored(keys)), reference = try SRTPSession(Self.mirrored(keys), libsrtpOnly: true)
        for (number, arrival) in arrivals.enumerated() {
            var datagram: [UInt8]
            switch arrival {
            case .packet(let n): datagram = datagrams[n]
            case .changed(let n, let at):
                datagram = datagrams[n]
                datagram[at >= 0 ? at : datagram.count + at] ^= 0x01
            case .cut(let n, let bytes): datagram = Array(datagrams[n].dropLast(bytes))
            }
            let mine = Result { try Self.unprotect(datagram, with: ours) }, theirs = Result { try Self.unprotect(datagram, with: reference) }
            switch (mine, theirs) {
            case (.success(let mine), .success(let theirs)):
                #expect(mine == theirs, "\(what): arrival \(number) (\(arrival)) opened to other bytes than libsrtp's")
            case (.failure(let mine), .failure(let theirs)):
                #expect((mine as? SRTPSession.Failure) == (theirs as? SRTPSession.Failure),
                        "\(what): arrival \(number) (\(arrival)): \(mine) where libsrtp said \(theirs)")
            default:
                Issue.record("\(what): arrival \(number) (\(arrival)): ours \(mine), libsrtp's \(theirs)")
            }
        }
    }

    @Test("at most 1,024 SSRCs are received on: the next is refused, the ones known go on")
    func receivedSSRCsAreBounded() throws {
        let keys = Self.keys()
        let sender = try SRTPSession(keys, libsrtpOnly: true), receiver = try SRTPSession(Self.mirrored(keys))
        for ssrc in UInt32(1)...UInt32(SRTPAEAD.maxReceivedSSRCs) {
            _ = try Self.unprotect(try Self.protect(Packet(sequence: 1, ssrc: ssrc).bytes, with: sender), with: receiver)
        }
        let next = try Self.protect(Packet(sequence: 1, ssrc: 0xFFFF).bytes, with: sender)
        #expect(throws: SRTPSession.Failure.badParameter) { try Self.unprotect(next, with: receiver) }
        let known = Packet(sequence: 2, ssrc: 7).bytes
        #expect(try Self.unprotect(try Self.protect(known, with: sender), with: receiver) == known)
    }

    static func unprotect(_ datagram: [UInt8], with session: SRTPSession) throws -> [UInt8] {
        var buffer = datagram
        let length = try buffer.withUnsafeMutableBytes { try session.unprotectRTP($0, length: datagram.count) }
        return Array(buffer.prefix(length))
    }

    static func protect(_ packet: [UInt8], with session: SRTPSession) throws -> [UInt8] {
        var buffer = packet + [UInt8](repeating: 0, count: SRTPSession.maxTrailer)
        let length = try buffer.withUnsafeMutableBytes { try session.protectRTP($0, length: packet.count) }
        return Array(buffer.prefix(length))
    }

    @Test("the session key and salt of RFC 7714's key derivation (libsrtp opens what they seal: above); the PRF's input block")
    func derivationBlock() throws {
        let masterKey = [UInt8](repeating: 0, count: 16), salt = (1...12).map { UInt8($0) }
        let key = try #require(SRTPAEAD.derive(label: 0, count: 16, masterKey: masterKey, masterSalt: salt))
        let sessionSalt = try #require(SRTPAEAD.derive(label: 2, count: 12, masterKey: masterKey, masterSalt: salt))
        #expect(key.count == 16 && sessionSalt.count == 12 && key.prefix(12) != sessionSalt[...])
        #expect(SRTPAEAD.derive(label: 0, count: 17, masterKey: masterKey, masterSalt: salt) == nil, "one block at most")
        #expect(SRTPAEAD(master: [1, 2, 3]) == nil, "a master key and salt of 28 bytes")
    }
}
