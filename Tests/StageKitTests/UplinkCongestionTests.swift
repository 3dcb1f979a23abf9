@testable import StageKit
import StageCongestion
import StageMedia
import StageTransport
import StageWire
import Testing

/// The publisher's own estimate: its packets numbered as they leave
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §2), the server's feedback on them read
/// for over-use (draft-ietf-rmcat-gcc-02 §5).
@Suite struct UplinkCongestionTests {
    static func packet(_ writer: inout RTPPacketWriter, rid: String? = nil, size: Int = 1_000) -> [UInt8] {
        var extensions = RTPExtensionBlockBuilder()
        if let rid { try? extensions.set(id: ClientPeerConnection.ridExtensionID, value: Array(rid.utf8)) }
        return writer.packet(payload: [UInt8](repeating: 0xAB, count: size), timestamp: 0, marker: true,
                             extensions: UplinkCongestion.withPlaceholder(extensions))
    }

    static func number(of packet: [UInt8]) -> UInt16? {
        packet.withUnsafeBytes { bytes in
            guard let header = try? RTPHeader.parse(bytes).header else { return nil }
            return (try? header.extensionValue(RTPTransportSequenceNumber.self, id: ClientPeerConnection.transportWideExtensionID, in: bytes))??.value
        }
    }

    @Test("every packet leaves numbered in turn, audio and video alike; nothing else in it moves")
    func numbering() throws {
        let congestion = UplinkCongestion()
        var video = RTPPacketWriter(ssrc: 1, payloadType: 96, clockRate: 90_000)
        var audio = RTPPacketWriter(ssrc: 2, payloadType: 111, clockRate: 48_000)
        var sent: [[UInt8]] = []
        for index in 0..<5 {
            var packet = index.isMultiple(of: 2) ? Self.packet(&video, rid: "q") : Self.packet(&audio, size: 80)
            let before = packet
            congestion.stamp(&packet, nowMicros: UInt64(index) * 1_000)
            #expect(packet.count == before.count)
            #expect(zip(packet, before).filter { $0 != $1 }.count <= 2, "only the number's two bytes change")
            sent.append(packet)
        }
        #expect(sent.map(Self.number(of:)) == [0, 1, 2, 3, 4])
        let rid = try sent[0].withUnsafeBytes { bytes in
            try RTPHeader.parse(bytes).header.extensionValueRange(id: ClientPeerConnection.ridExtensionID, in: bytes).map { Array(bytes[$0]) }
        }
        #expect(rid == Array("q".utf8))
        // A packet without the placeholder leaves as it is and takes no number.
        var plain = video.packet(payload: [1, 2, 3], timestamp: 0, marker: false)
        let copy = plain
        congestion.stamp(&plain, nowMicros: 9_000)
        #expect(plain == copy)
        var next = Self.packet(&video)
        congestion.stamp(&next, nowMicros: 10_000)
        #expect(Self.number(of: next) == 5)
    }

    /// 1,000-byte packets at 1.2 Mbps through a link of 2.5 Mbps that becomes `narrowRate` at
    /// 2 s, 20 ms away, the server reporting what arrived every 100 ms: the cuts `feedback` gave.
    static func cuts(narrowRate: Int) -> [Int] {
        let congestion = UplinkCongestion()
        var writer = RTPPacketWriter(ssrc: 1, payloadType: 96, clockRate: 90_000)
        var recorder = TransportFeedbackRecorder()
        var inFlight: [(sequence: UInt16, arrives: Int64)] = []
        var linkFree: Int64 = 0
        var cuts: [Int] = []
        for index in 0..<600 {
            let now = Int64(index) * 6_667
            var packet = Self.packet(&writer)
            congestion.stamp(&packet, nowMicros: UInt64(now))
            let rate = Int64(now >= 2_000_000 ? narrowRate : 2_500_000)
            linkFree = max(linkFree, now) + Int64((packet.count + TransportSendHistory.overheadPerPacket) * 8) * 1_000_000 / rate
            inFlight.append((Self.number(of: packet) ?? 0, linkFree + 20_000))
            while let first = inFlight.first, first.arrives <= now {
                recorder.record(first.sequence, at: first.arrives)
                inFlight.removeFirst()
            }
            guard index % 15 == 0 else { continue }
            for feedback in recorder.feedback(senderSSRC: 1, mediaSSRC: 1) {
                if let cut = congestion.feedback(feedback, nowMicros: UInt64(now)) { cuts.append(cut) }
            }
        }
        return cuts
    }

    @Test("feedback from a link narrowed under what is sent says over-use, from what arrived; from a link that carries it, nothing")
    func overuse() throws {
        #expect(Self.cuts(narrowRate: 2_500_000).isEmpty)
        let cuts = Self.cuts(narrowRate: 300_000)
        let last = try #require(cuts.last)
        #expect(abs(last - 300_000) < 45_000, "cut from \(cuts) b/s")
    }

    @Test("transport-cc in the server's RTCP is read as such")
    func parsed() throws {
        let feedback = try RTCPTransportCCFeedback(senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 7, referenceTime: 1,
                                                   feedbackPacketCount: 0, receiveDeltas: [4, nil, 8])
        let bytes = try RTCPPacket.transportCCFeedback(feedback).serialized()
        #expect(bytes.withUnsafeBytes { PublisherFeedback.parse($0) } == [.transportFeedback(feedback)])
    }
}
