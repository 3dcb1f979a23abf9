import Testing
@testable import StageMedia
import StageWire

/// Receiver statistics against hand computations of RFC 3550 §6.4.1 and Appendix A.1, A.3, A.8,
/// and the sender's round-trip time from LSR/DLSR.
@Suite("Receiver statistics (RFC 3550 §6.4.1, A.1, A.3, A.8)")
struct JitterReceiverStatisticsTests {
    static func record(_ stats: inout ReceiverStatistics, _ sequences: [UInt16]) {
        for sequence in sequences {
            stats.record(sequenceNumber: sequence, rtpTimestamp: UInt32(sequence) * 960, arrivalMicros: UInt64(sequence) * 20_000)
        }
    }

    @Test("A.3: cumulative lost and fraction lost per interval (lost × 256 / expected)")
    func loss() throws {
        var stats = ReceiverStatistics(ssrc: 7, clockRate: 48_000)
        let none = stats.makeReportBlock(nowMicros: 0)
        #expect(none == nil)
        Self.record(&stats, (0..<10).filter { ![3, 5, 7].contains($0) })
        let first = stats.makeReportBlock(nowMicros: 0)
        var block = try #require(first)
        #expect(block.ssrc == 7 && block.extendedHighestSequenceNumber == 9)
        #expect(block.cumulativeLost == 3 && block.fractionLost == 76)  // 3 × 256 / 10 = 76.8
        Self.record(&stats, Array(10..<20))
        let second = stats.makeReportBlock(nowMicros: 0)
        block = try #require(second)
        #expect(block.cumulativeLost == 3 && block.fractionLost == 0)
        Self.record(&stats, [21, 23, 25, 27, 29])
        let third = stats.makeReportBlock(nowMicros: 0)
        block = try #require(third)
        #expect(block.cumulativeLost == 8 && block.fractionLost == 128)  // 5 × 256 / 10
        #expect(stats.packetsExpected == 30 && stats.packetsReceived == 22)
        // No packet since the last report: nothing expected, fraction 0.
        let empty = stats.makeReportBlock(nowMicros: 0)
        #expect(empty?.fractionLost == 0)
    }

    @Test("A.1: the extended highest sequence number counts cycles across 65535 → 0")
    func wraparound() throws {
        var stats = ReceiverStatistics(ssrc: 1, clockRate: 90_000)
        Self.record(&stats, [65_530, 65_531, 65_532, 65_533, 65_534, 65_535, 0, 1, 2, 3, 4, 5])
        #expect(stats.extendedHighestSequenceNumber == 65_541)
        #expect(stats.packetsExpected == 12 && stats.cumulativeLost == 0)
        // A packet from before the wrap, reordered: counted, the highest is unchanged.
        Self.record(&stats, [65_533])
        #expect(stats.extendedHighestSequenceNumber == 65_541 && stats.cumulativeLost == -1)
    }

    @Test("A.3: duplicates make the cumulative loss negative")
    func duplicates() {
        var stats = ReceiverStatistics(ssrc: 1, clockRate: 48_000)
        Self.record(&stats, [0, 1, 2, 2, 2])
        #expect(stats.packetsExpected == 3 && stats.cumulativeLost == -2)
    }

    @Test("A.1: a jump beyond MAX_DROPOUT is a restart only when the next packet follows it")
    func restart() {
        var stats = ReceiverStatistics(ssrc: 1, clockRate: 48_000)
        Self.record(&stats, [100, 101])
        let jump = stats.record(sequenceNumber: 40_000, rtpTimestamp: 0, arrivalMicros: 0)
        let otherJump = stats.record(sequenceNumber: 50_000, rtpTimestamp: 0, arrivalMicros: 0)
        #expect(!jump && !otherJump)
        #expect(stats.extendedHighestSequenceNumber == 101 && stats.packetsReceived == 2)
        let confirmed = stats.record(sequenceNumber: 50_001, rtpTimestamp: 0, arrivalMicros: 0)
        #expect(confirmed)
        #expect(stats.extendedHighestSequenceNumber == 50_001)
        #expect(stats.packetsReceived == 1 && stats.packetsExpected == 1)
    }

    @Test("A.8: interarrival jitter J += (|D| − J) / 16, across the 32-bit timestamp wrap")
    func jitter() {
        let base: UInt32 = 4_294_960_000  // wraps after the third packet
        let timestamps: [UInt32] = [0, 3000, 6000, 9000, 12_000]
        let arrivals: [UInt64] = [0, 35_000, 66_000, 101_000, 133_000]  // µs
        var stats = ReceiverStatistics(ssrc: 1, clockRate: 90_000)
        for index in timestamps.indices {
            stats.record(sequenceNumber: UInt16(index), rtpTimestamp: base &+ timestamps[index], arrivalMicros: 1_000_000 + arrivals[index])
        }
        // By hand, in 90 kHz ticks: arrivals 0, 3150, 5940, 9090, 11970; transit 0, 150, −60, 90, −30;
        // |D| = 150, 210, 150, 120.
        var expected = 0.0
        for difference in [150.0, 210, 150, 120] { expected += (difference - expected) / 16 }
        #expect(abs(stats.jitterEstimate - expected) < 1e-9)
        #expect(abs(expected - 35.5495) < 0.001)
        #expect(stats.jitter == 35)
    }

    @Test("A.8 as libwebrtc: packets of one frame (same timestamp) and reordered packets leave jitter alone")
    func jitterSkipsSameTimestamp() {
        var stats = ReceiverStatistics(ssrc: 1, clockRate: 90_000)
        stats.record(sequenceNumber: 0, rtpTimestamp: 0, arrivalMicros: 0)
        stats.record(sequenceNumber: 1, rtpTimestamp: 0, arrivalMicros: 5_000)
        stats.record(sequenceNumber: 3, rtpTimestamp: 3000, arrivalMicros: 38_333)
        stats.record(sequenceNumber: 2, rtpTimestamp: 0, arrivalMicros: 90_000)
        // One update only: packet 1 (arrival 450 ticks, transit 450) to packet 3 (arrival 3449, transit 449).
        let transit1 = 450.0, transit3 = 3449.0 - 3000
        #expect(abs(stats.jitterEstimate - abs(transit3 - transit1) / 16) < 1e-9)
    }

    @Test("§6.4.1: LSR is the middle 32 bits of the SR's NTP time; DLSR the delay since, in 1/65536 s")
    func lastSenderReport() throws {
        var stats = ReceiverStatistics(ssrc: 5, clockRate: 90_000)
        stats.record(sequenceNumber: 1, rtpTimestamp: 0, arrivalMicros: 0)
        let before = stats.makeReportBlock(nowMicros: 500_000)
        var block = try #require(before)
        #expect(block.lastSenderReport == 0 && block.delaySinceLastSenderReport == 0)
        let report = RTCPSenderReport(ssrc: 5, ntpTime: 0xAABB_CCDD_EEFF_0011, rtpTime: 0, packetCount: 1, octetCount: 1)
        stats.recordSenderReport(report, arrivalMicros: 1_000_000)
        let after = stats.makeReportBlock(nowMicros: 2_500_000)
        block = try #require(after)
        #expect(block.lastSenderReport == 0xCCDD_EEFF)
        #expect(block.delaySinceLastSenderReport == 98_304)  // 1.5 × 65536
    }

    @Test("§6.4.1 example: A 0xb710:8000 − LSR 0xb705:2000 − DLSR 0x0005:4000 = 6.125 s")
    func roundTripRFCExample() {
        let report = RTCPReceptionReport(ssrc: 1, lastSenderReport: 0xB705_2000, delaySinceLastSenderReport: 0x0005_4000)
        #expect(RTCPTiming.roundTripTime(report: report, arrivalNTPTime: 0x0000_B710_8000_0000) == 6_125_000)
        #expect(RTCPTiming.roundTripTime(report: RTCPReceptionReport(ssrc: 1), arrivalNTPTime: 1 << 40) == nil)
        // An arrival "before" LSR + DLSR (clock step): 0, not a huge wrapped value.
        #expect(RTCPTiming.roundTripTime(report: report, arrivalNTPTime: 0x0000_B705_2000_0000) == 0)
    }

    @Test("RTT end to end: SR out, RR back 300 ms later, 40 ms each way → 80 ms")
    func roundTripEndToEnd() throws {
        let senderNow = RTCPTiming.ntpTime(unixMicros: 1_700_000_000_000_000)
        var stats = ReceiverStatistics(ssrc: 9, clockRate: 90_000)
        stats.record(sequenceNumber: 1, rtpTimestamp: 0, arrivalMicros: 5_000_000)
        stats.recordSenderReport(ntpTime: senderNow, arrivalMicros: 5_040_000)
        let made = stats.makeReportBlock(nowMicros: 5_340_000)
        let block = try #require(made)
        let arrival = RTCPTiming.ntpTime(unixMicros: 1_700_000_000_380_000)
        let rtt = try #require(RTCPTiming.roundTripTime(report: block, arrivalNTPTime: arrival))
        #expect(rtt >= 79_950 && rtt <= 80_050)
    }

    @Test("NTP conversions: Unix epoch offset, 32.32 fraction, compact durations")
    func ntpConversions() {
        #expect(RTCPTiming.ntpTime(unixMicros: 1_500_000) == (UInt64(2_208_988_801) << 32 | 0x8000_0000))
        #expect(RTCPTiming.compact(ntpTime: 0x0001_0002_0003_0004) == 0x0002_0003)
        #expect(RTCPTiming.compactDuration(micros: 1_000_000) == 65_536)
        #expect(RTCPTiming.compactDuration(micros: .max) == .max)
        #expect(RTCPTiming.micros(compactDuration: 32_768) == 500_000)
    }
}
