@testable import StageServer
import Testing

/// The send times a forwarded packet is stamped with, from a monotonic clock in nanoseconds.
struct ForwardedPacketWriterTests {
    @Test("abs-send-time is 6.18 fixed-point seconds that wrap every 64 s", arguments: [
        (UInt64(0), UInt32(0)),
        (UInt64(1_500_000_000), UInt32(393_216)),                 // 1.5 s × 2¹⁸
        (UInt64(64_250_000_000), UInt32(65_536)),                 // 64.25 s wraps to 0.25 s
        (UInt64(3_600_000_000_001), UInt32(4_194_304)),           // an hour: 3,600 mod 64 = 16 s; 1 ns rounds down
        (UInt64(1) << 62, UInt32(636_325)),               // ~146 years of uptime
    ])
    func absSendTime(nanoseconds: UInt64, expected: UInt32) {
        #expect(ForwardedPacketWriter.absSendTime(nanoseconds).value == expected)
    }

    @Test("transport-cc send times are the same clock in microseconds")
    func microseconds() {
        #expect(ForwardedPacketWriter.microseconds(1_234_567_891) == 1_234_567)
    }
}
