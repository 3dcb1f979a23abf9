import NIOCore
@testable import StageTransport
import Testing

/// `PipeTransport` on real UDP sockets on 127.0.0.1, each end on its own event loop of one
/// group (as two media workers): what crosses, what goes on the wire, and what is refused.
struct PipeTransportTests {
    @Test("RTP and RTCP cross the pipe both ways byte for byte, and both ends count them")
    func bothWays() async throws {
        try await Self.withLoops { loops in
            let (forA, forB) = SRTPKeyingMaterial.pipePair()
            let atA = PipeRecorder(), atB = PipeRecorder()
            let a = try await Self.pipe(on: loops[0], recorder: atA), b = try await Self.pipe(on: loops[1], recorder: atB)
            #expect(a.eventLoop !== b.eventLoop)
            try await a.eventLoop.submit { try a.connect(remote: b.localAddress, keys: forA) }.get()
            try await b.eventLoop.submit { try b.connect(remote: a.localAddress, keys: forB) }.get()

            let rtpAB = Self.rtp(sequence: 1, ssrc: 0xA), rtcpAB = Self.receiverReport(ssrc: 0xA)
            let rtpBA = Self.rtp(sequence: 7, ssrc: 0xB), rtcpBA = Self.receiverReport(ssrc: 0xB)
            #expect(try await a.eventLoop.submit { rtpAB.withUnsafeBytes { a.sendRTP($0) } && rtcpAB.withUnsafeBytes { a.sendRTCP($0) } }.get())
            #expect(try await b.eventLoop.submit { rtpBA.withUnsafeBytes { b.sendRTP($0) } && rtcpBA.withUnsafeBytes { b.sendRTCP($0) } }.get())

            let atBSeen = try await Self.waitUntil(b, atB) { $0.received == 2 }
            #expect(atBSeen.rtp == [rtpAB])
            #expect(atBSeen.rtcp == [rtcpAB])
            #expect(atBSeen.sent == 2)
            #expect(atBSeen.refused.isEmpty)
            let atASeen = try await Self.waitUntil(a, atA) { $0.received == 2 }
            #expect(atASeen.rtp == [rtpBA])
            #expect(atASeen.rtcp == [rtcpBA])
            #expect(atASeen.sent == 2)
            #expect(atASeen.refused.isEmpty && atASeen.notSent.isEmpty)
            await a.close()
            await b.close()
        }
    }

    @Test("what goes on the wire is SRTP and SRTCP: header in clear, payload encrypted, tag added; the far end's key opens it")
    func wireIsProtected() async throws {
        try await Self.withLoops { loops in
            let (forA, forB) = SRTPKeyingMaterial.pipePair()
            let far = try RawPipeEnd(keys: forB)
            defer { far.close() }
            let a = try await Self.pipe(on: loops[0], recorder: PipeRecorder(), remote: far.address, keys: forA)
            let packet = Self.rtp(sequence: 9), report = Self.receiverReport()
            #expect(try await a.eventLoop.submit { packet.withUnsafeBytes { a.sendRTP($0) } }.get())
            let wire = try #require(far.receive())
            #expect(wire.count == packet.count + 16, "AES-GCM's 16-byte tag (RFC 7714)")
            #expect(Array(wire.prefix(12)) == Array(packet.prefix(12)), "the RTP header is not encrypted")
            #expect(wire[12..<packet.count] != packet[12...], "the payload is")
            #expect(Self.open(wire, with: far.srtp) == .rtp(length: packet.count))

            #expect(try await a.eventLoop.submit { report.withUnsafeBytes { a.sendRTCP($0) } }.get())
            let wireReport = try #require(far.receive())
            #expect(wireReport.count == report.count + 16 + 4, "tag, and SRTCP's E flag and index (RFC 3711 §3.4)")
            #expect(Self.open(wireReport, with: far.srtp) == .rtcp(length: report.count))
            await a.close()
        }
    }

    /// One datagram the pipe must refuse, sent after an RTP and an RTCP packet it took.
    enum Refusal: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case thirdSocket = "from a third socket, though protected with the right key"
        case otherKeys = "protected with another pair's key"
        case payloadByteChanged = "one payload byte changed"
        case headerByteChanged = "one header byte (the SSRC) changed"
        case tagByteChanged = "the tag's last byte changed"
        case rtcpByteChanged = "one SRTCP byte changed"
        case rtpReplay = "the RTP datagram taken, again"
        case rtcpReplay = "the RTCP datagram taken, again"
        case tooShort = "three bytes"
        case rtcpTooShort = "RTCP of 8 bytes, without SRTCP's index"
        case notRTP = "a datagram that is no RTP or RTCP (STUN's first byte)"
        case paddingPastEnd = "authentic RTP whose padding count runs past its payload"

        var testDescription: String { rawValue }

        var reason: MediaDropReason {
            switch self {
            case .thirdSocket: .pipeUnknownSource
            case .otherKeys, .payloadByteChanged, .headerByteChanged, .tagByteChanged, .rtcpByteChanged: .pipeAuthentication
            case .rtpReplay, .rtcpReplay: .pipeReplay
            case .tooShort, .rtcpTooShort, .notRTP, .paddingPastEnd: .pipeMalformed
            }
        }

        /// The datagram, and whether it comes from the stranger rather than the far end.
        func datagram(far: RawPipeEnd, taken: (rtp: [UInt8], rtcp: [UInt8])) throws -> (bytes: [UInt8], fromStranger: Bool) {
            let fresh = PipeTransportTests.rtp(sequence: 2)
            func changed(_ bytes: [UInt8], at index: Int) -> [UInt8] {
                var copy = bytes
                copy[index] ^= 0x01
                return copy
            }
            switch self {
            case .thirdSocket: return (try far.protect(fresh), true)
            case .otherKeys:
                let other = try SRTPSession(SRTPKeyingMaterial.pipePair().forB)
                return (try PipeTransportTests.protect(fresh, with: other), false)
            case .payloadByteChanged: return (changed(try far.protect(fresh), at: 20), false)
            case .headerByteChanged: return (changed(try far.protect(fresh), at: 9), false)
            case .tagByteChanged:
                let protected = try far.protect(fresh)
                return (changed(protected, at: protected.count - 1), false)
            case .rtcpByteChanged: return (changed(try far.protect(PipeTransportTests.receiverReport(), rtcp: true), at: 10), false)
            case .rtpReplay: return (taken.rtp, false)
            case .rtcpReplay: return (taken.rtcp, false)
            case .tooShort: return ([0x80, 96, 0], false)
            case .rtcpTooShort: return ([0x80, 200, 0, 1, 0, 0, 0, 1], false)
            case .notRTP: return ([0x00, 0x01, 0x00, 0x00] + [UInt8](repeating: 0x21, count: 16), false)
            case .paddingPastEnd: return (try far.protect(PipeTransportTests.rtp(sequence: 2, padding: 200)), false)
            }
        }
    }

    @Test("refused: not delivered, counted by reason on the receiving end, and the pipe still takes what is valid",
          arguments: Refusal.allCases)
    func refusals(_ refusal: Refusal) async throws {
        try await Self.withLoops { loops in
            let (forA, forB) = SRTPKeyingMaterial.pipePair()
            let far = try RawPipeEnd(keys: forB), stranger = try RawPipeEnd(keys: forB)
            defer { far.close(); stranger.close() }
            let recorder = PipeRecorder()
            let a = try await Self.pipe(on: loops[0], recorder: recorder, remote: far.address, keys: forA)
            let taken = (rtp: try far.protect(Self.rtp(sequence: 1)), rtcp: try far.protect(Self.receiverReport(), rtcp: true))
            far.send(taken.rtp, to: a.localAddress)
            far.send(taken.rtcp, to: a.localAddress)
            let before = try await Self.waitUntil(a, recorder) { $0.received == 2 }
            #expect(before.rtp.count == 1 && before.rtcp.count == 1 && before.refused.isEmpty)

            let (bytes, fromStranger) = try refusal.datagram(far: far, taken: taken)
            (fromStranger ? stranger : far).send(bytes, to: a.localAddress)
            let after = try await Self.waitUntil(a, recorder) { !$0.refused.isEmpty }
            #expect(after.refused == [refusal.reason: 1])
            #expect(after.received == 2 && after.rtp == before.rtp && after.rtcp == before.rtcp, "not delivered")

            let next = Self.rtp(sequence: 3)
            far.send(try far.protect(next), to: a.localAddress)
            let last = try await Self.waitUntil(a, recorder) { $0.received == 3 }
            #expect(last.rtp.last == next, "a valid packet after it arrives")
            await a.close()
        }
    }

    @Test("before connect every datagram is refused (pipe_unknown_source) and nothing is sent; after it, the same bytes arrive")
    func refusedBeforeConnect() async throws {
        try await Self.withLoops { loops in
            let (forA, forB) = SRTPKeyingMaterial.pipePair()
            let far = try RawPipeEnd(keys: forB)
            defer { far.close() }
            let recorder = PipeRecorder()
            let a = try await Self.pipe(on: loops[0], recorder: recorder)
            let packet = Self.rtp(sequence: 1), protected = try far.protect(packet)
            far.send(protected, to: a.localAddress)
            let refused = try await Self.waitUntil(a, recorder) { !$0.refused.isEmpty }
            #expect(refused.refused == [.pipeUnknownSource: 1] && refused.rtp.isEmpty)
            #expect(try await a.eventLoop.submit { packet.withUnsafeBytes { a.sendRTP($0) } }.get() == false)
            #expect(try await Self.seen(a, recorder).notSent == [.sendNotReady: 1])

            try await a.eventLoop.submit { try a.connect(remote: far.address, keys: forA) }.get()
            far.send(protected, to: a.localAddress)
            let delivered = try await Self.waitUntil(a, recorder) { $0.received == 1 }
            #expect(delivered.rtp == [packet], "the refused datagram left the SRTP state untouched")
            await a.close()
        }
    }
}
