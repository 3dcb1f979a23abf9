import StageCongestion
import StageWire
import Testing

/// The delay-based half of GCC on the send side (draft-ietf-rmcat-gcc-02 §5) and the pieces it
/// stands on: `TransportSendHistory` (draft-holmer-rmcat-transport-wide-cc-extensions-01),
/// `RecentRate`, `DelayTrendline` and `DelayBasedDetector`.
@Suite struct DelayBasedDetectorTests {
    /// A sender at `sendRate` bits/s of 1,200-byte packets, 30 bursts a second, through a link of
    /// `linkRate` from `narrowFrom` µs on (`wideRate` before), 20 ms away: each packet's (sent, arrived).
    static func link(seconds: Double, sendRate: Int, wideRate: Int, linkRate: Int, narrowFrom: Int64) -> [(sent: Int64, arrived: Int64)] {
        var packets: [(Int64, Int64)] = []
        var linkFree: Int64 = 0
        let perBurst = max(1, sendRate / 8 / 1200 / 30)
        for frame in 0..<Int(seconds * 30) {
            let sent = Int64(frame) * 33_333
            for index in 0..<perBurst {
                let at = sent + Int64(index) * 100
                let rate = at >= narrowFrom ? linkRate : wideRate
                linkFree = max(linkFree, at) + Int64(1200 * 8) * 1_000_000 / Int64(rate)
                packets.append((at, linkFree + 20_000))
            }
        }
        return packets
    }

    @Test("A link that carries what is sent stays normal; one that narrows under it is over-used within a quarter second")
    func trendline() {
        var steady = DelayTrendline()
        for packet in Self.link(seconds: 5, sendRate: 2_400_000, wideRate: 10_000_000, linkRate: 10_000_000, narrowFrom: .max) {
            steady.packet(sentAt: packet.sent, arrivedAt: packet.arrived)
            #expect(steady.usage != .overusing)
        }
        var narrowing = DelayTrendline()
        var overusedAt: Int64?
        for packet in Self.link(seconds: 5, sendRate: 2_400_000, wideRate: 10_000_000, linkRate: 300_000, narrowFrom: 3_000_000) {
            narrowing.packet(sentAt: packet.sent, arrivedAt: packet.arrived)
            if narrowing.usage == .overusing, overusedAt == nil { overusedAt = packet.sent }
        }
        let seen = overusedAt
        #expect(seen.map { $0 >= 3_000_000 && $0 < 3_250_000 } == true, "over-use seen at \(String(describing: seen)) µs")
    }

    @Test("A jittery link (±10 ms per packet, no queue growing) is not taken for over-use once the threshold adapts")
    func jitter() {
        var detector = DelayTrendline()
        var seed: UInt64 = 12345
        var overused = 0
        for packet in Self.link(seconds: 20, sendRate: 1_200_000, wideRate: 10_000_000, linkRate: 10_000_000, narrowFrom: .max) {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let jitter = Int64(seed >> 33) % 20_000 - 10_000
            detector.packet(sentAt: packet.sent, arrivedAt: packet.arrived + 40_000 + jitter)
            if packet.sent > 5_000_000, detector.usage == .overusing { overused += 1 }
        }
        #expect(overused == 0)
    }

    @Test("What arrived: bytes over the last quarter second of the receiver's clock; nothing over less than 100 ms")
    func recentRate() throws {
        var rate = RecentRate()
        rate.add(size: 1200, at: 0)
        rate.add(size: 1200, at: 50_000)
        #expect(rate.bitsPerSecond == nil)
        for step in 2...100 { rate.add(size: 1200, at: Int64(step) * 10_000 + 30_000) }
        let wide = try #require(rate.bitsPerSecond)
        #expect(abs(wide - 960_000) < 20_000, "\(wide)")
        // The link narrows: one packet every 40 ms; a quarter second later only those count.
        for step in 1...7 { rate.add(size: 1200, at: 1_030_000 + Int64(step) * 40_000) }
        let narrow = try #require(rate.bitsPerSecond)
        #expect(abs(narrow - 240_000) < 20_000, "\(narrow)")
    }

    @Test("What a receiver reports cannot grow it: out of order, too late or too many, it holds at most its capacity")
    func recentRateIsBounded() {
        var rate = RecentRate()
        rate.add(size: 1200, at: 1_000_000)
        for step in 0..<20_000 { rate.add(size: 1200, at: 1_000_000 - Int64(step % 200_000)) }
        #expect(rate.count <= RecentRate.capacity)
        rate.add(size: 1200, at: 0)   // a quarter second older than the newest: not taken
        #expect(rate.count <= RecentRate.capacity)
        for step in 0..<10_000 { rate.add(size: 1200, at: 1_000_000 + Int64(step)) }
        #expect(rate.count == RecentRate.capacity)
    }

    @Test("Transport-wide numbers run on across wraps; feedback finds each packet's send time and size, not a reused slot's")
    func sendHistory() throws {
        let history = TransportSendHistory(firstSequence: 65534)
        var numbers: [UInt16] = []
        for index in 0..<4 {
            let sequence = history.takeSequence()
            numbers.append(sequence)
            history.sent(sequence, size: 1000 + index, at: Int64(index) * 1000)
        }
        #expect(numbers == [65534, 65535, 0, 1])
        // 65534 arrived at 64 ms + 1 ms, 65535 was lost, 0 arrived 2 ms later; 1 is not reported.
        let feedback = try RTCPTransportCCFeedback(senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 65534, referenceTime: 1,
                                                   feedbackPacketCount: 0, receiveDeltas: [4, nil, 8])
        #expect(history.match(feedback) == [
            .init(sequence: 65534, sentAt: 0, size: 1000, arrivedAt: 65_000),
            .init(sequence: 65535, sentAt: 1000, size: 1001, arrivedAt: nil),
            .init(sequence: 0, sentAt: 2000, size: 1002, arrivedAt: 67_000),
        ])
        // A whole ring later, number 0's slot holds another packet: feedback about the old one finds nothing.
        for _ in 0..<(TransportSendHistory.capacity - 2) { history.sent(history.takeSequence(), size: 1, at: 9) }
        let stale = try RTCPTransportCCFeedback(senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 65534, referenceTime: 1,
                                                feedbackPacketCount: 1, receiveDeltas: [4])
        #expect(history.match(stale).isEmpty)
    }

    @Test("The detector cuts from what arrived once the link narrows under what is sent, at most every 200 ms; never on a link that carries it")
    func detectorCuts() throws {
        var steady = DelayBasedDetector()
        for packet in Self.link(seconds: 5, sendRate: 2_400_000, wideRate: 10_000_000, linkRate: 10_000_000, narrowFrom: .max) {
            steady.packet(size: 1200, sentAt: packet.sent, arrivedAt: packet.arrived)
            #expect(steady.overuseCut(nowMicros: packet.sent) == nil)
        }
        var narrowing = DelayBasedDetector()
        var cuts: [(at: Int64, from: Int)] = []
        for packet in Self.link(seconds: 5, sendRate: 2_400_000, wideRate: 10_000_000, linkRate: 300_000, narrowFrom: 3_000_000) {
            narrowing.packet(size: 1200, sentAt: packet.sent, arrivedAt: packet.arrived)
            if let from = narrowing.overuseCut(nowMicros: packet.sent) { cuts.append((packet.sent, from)) }
        }
        let first = try #require(cuts.first)
        #expect(first.at >= 3_000_000 && first.at < 3_500_000, "first cut at \(first.at) µs")
        #expect(zip(cuts, cuts.dropFirst()).allSatisfy { $1.at - $0.at >= DelayBasedDetector.cutInterval })
        let last = try #require(cuts.last)
        #expect(abs(last.from - 300_000) < 30_000, "the last cut is from \(last.from) b/s, the narrow link's rate")
    }

    @Test("A packet reported lost counts as sent, not as arrived")
    func lostPackets() {
        var detector = DelayBasedDetector()
        for index in 0..<100 {
            let sent = Int64(index) * 10_000
            detector.packet(size: 1_000, sentAt: sent, arrivedAt: index.isMultiple(of: 2) ? sent + 20_000 : nil)
        }
        // 100 bytes a millisecond sent; half of it arrived.
        #expect(detector.arrivedBitsPerSecond.map { abs($0 - 400_000) < 40_000 } == true, "\(String(describing: detector.arrivedBitsPerSecond))")
    }
}
