import Testing
import StageWire
@testable import StageMedia

@Suite struct SenderClockTests {
    /// 2026-01-01T00:00:00.5Z as NTP (seconds since 1900 in the high word, half a second in the low).
    static let ntp: UInt64 = (UInt64(1_767_225_600) + RTCPTiming.unixEpochOffsetSeconds) << 32 | 0x8000_0000
    static let micros: UInt64 = 1_767_225_600_500_000

    func report(rtp: UInt32) -> RTCPSenderReport {
        RTCPSenderReport(ssrc: 1, ntpTime: Self.ntp, rtpTime: rtp, packetCount: 0, octetCount: 0)
    }

    @Test func mapsTimestampsAroundTheReport() {
        var clock = SenderClock(clockRate: 90_000)
        #expect(clock.senderMicros(rtpTime: 0) == nil)
        clock.update(report(rtp: 1_000_000))
        #expect(clock.isSynchronized)
        #expect(clock.senderMicros(rtpTime: 1_000_000) == Self.micros)
        #expect(clock.senderMicros(rtpTime: 1_000_000 + 3000) == Self.micros + 33_333)
        #expect(clock.senderMicros(rtpTime: 1_000_000 - 90_000) == Self.micros - 1_000_000)
    }

    @Test func wrapsAround() {
        var clock = SenderClock(clockRate: 48_000)
        clock.update(report(rtp: UInt32.max - 479))
        // 480 ticks after the report crosses 2^32.
        #expect(clock.senderMicros(rtpTime: 0) == Self.micros + 10_000)
    }

    @Test func ignoresAnNTPTimeBefore1970() {
        var clock = SenderClock(clockRate: 48_000)
        clock.update(RTCPSenderReport(ssrc: 1, ntpTime: 5 << 32, rtpTime: 0, packetCount: 0, octetCount: 0))
        #expect(!clock.isSynchronized)
    }
}
