import Testing
@testable import StageServer
import StageWire

/// What the SFU reads from subscribers' RTCP, and that broken compounds cannot stall it.
struct RTCPFeedbackTests {
    // PLI: V=2 FMT=1 PT=206 len=2, sender 0x00000001, media 0x0000ABCD.
    static let pli: [UInt8] = [0x81, 206, 0x00, 0x02, 0, 0, 0, 1, 0, 0, 0xAB, 0xCD]
    // Generic NACK: V=2 FMT=1 PT=205 len=3, sender 1, media 0x0000ABCD, PID 100, BLP 0b101 (101, 103).
    static let nack: [UInt8] = [0x81, 205, 0x00, 0x03, 0, 0, 0, 1, 0, 0, 0xAB, 0xCD, 0x00, 100, 0x00, 0x05]

    @Test("RFC 4585 §6.2.1/§6.3.1: a compound of PLI and NACK gives the keyframe and lost packets")
    func readsPLIAndNACK() {
        let requests = (Self.pli + Self.nack).withUnsafeBytes { RTCPFeedback.requests(in: $0) }
        #expect(requests.keyframes == [0xABCD])
        #expect(requests.lost.count == 1)
        #expect(requests.lost.first?.ssrc == 0xABCD)
        #expect(requests.lost.first?.sequences == [100, 101, 103])
    }

    static let broken: [(String, [UInt8])] = [
        ("empty", []),
        ("three bytes", [0x81, 206, 0x00]),
        ("length beyond the buffer", [0x81, 206, 0x00, 0x09] + [UInt8](repeating: 0, count: 8)),
        ("version 1", [0x41, 206, 0x00, 0x02, 0, 0, 0, 1, 0, 0, 0, 2]),
        ("PLI then garbage", pli + [0xFF, 0xFF]),
        ("NACK without entries", [0x81, 205, 0x00, 0x02, 0, 0, 0, 1, 0, 0, 0xAB, 0xCD]),
    ]

    @Test("malformed compounds end the walk without a request and without looping", arguments: broken.indices)
    func brokenCompounds(_ index: Int) {
        let (name, bytes) = Self.broken[index]
        let requests = bytes.withUnsafeBytes { RTCPFeedback.requests(in: $0) }
        #expect(requests.lost.isEmpty, "\(name)")
        if name != "PLI then garbage" { #expect(requests.keyframes.isEmpty, "\(name)") }
    }

    @Test("PLI, NACK and the RR + REMB compound we send parse back with StageWire")
    func builtPacketsRoundTrip() {
        let pli = RTCPFeedback.pictureLossIndication(sender: 1, media: 0x77)
        #expect(pli.withUnsafeBytes { RTCPFeedback.requests(in: $0) }.keyframes == [0x77])
        let nack = RTCPFeedback.genericNACK(sender: 1, media: 0x77, lost: [10, 12, 40])
        #expect(nack.withUnsafeBytes { RTCPFeedback.requests(in: $0) }.lost.map(\.sequences) == [[10, 12, 40]])
        let block = RTCPReceptionReport(ssrc: 5, fractionLost: 3, cumulativeLost: 4, extendedHighestSequenceNumber: 100, jitter: 7,
                                        lastSenderReport: 8, delaySinceLastSenderReport: 9)
        let feedback = RTCPFeedback.receiverFeedback(sender: 1, reports: [block], bitsPerSecond: 6_000_000, estimateSSRCs: [5, 6])
        let parsed = feedback.withUnsafeBytes { RTCPFeedback.packets(in: $0) }
        #expect(parsed.count == 2)
        guard case .receiverReport(let report) = parsed.first, case .receiverEstimatedMaxBitrate(let remb) = parsed.last else {
            Issue.record("expected RR then REMB, got \(parsed)")
            return
        }
        #expect(report.ssrc == 1 && report.reports == [block])
        #expect(remb.bitrate == 6_000_000 && remb.ssrcs == [5, 6])
        let audioOnly = RTCPFeedback.receiverFeedback(sender: 1, reports: [block], bitsPerSecond: 6_000_000, estimateSSRCs: [])
        #expect(audioOnly.withUnsafeBytes { RTCPFeedback.packets(in: $0) }.count == 1, "no REMB without video")
    }
}
