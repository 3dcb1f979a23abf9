@testable import StageServer
import Testing

/// `PipeDelay`: half the round trip of each echo, smoothed by an eighth; echoes that cannot be
/// answers to a recent request are ignored.
struct PipeDelayTests {
    /// (echoes as (sent at, came back at) in nanoseconds, taken?, the one-way delay after them).
    static let cases: [(String, [(UInt64, UInt64)], [Bool], UInt64?)] = [
        ("none yet", [], [], nil),
        ("the first echo: half its round trip", [(1_000, 3_000)], [true], 1_000),
        ("a longer one moves it an eighth of the way", [(0, 2_000), (10_000, 30_000)], [true, true], 1_000 + 9_000 / 8),
        ("a shorter one too", [(0, 18_000), (10_000, 12_000)], [true, true], 9_000 - 8_000 / 8),
        ("a zero round trip counts", [(5, 5)], [true], 0),
        ("from the future: ignored", [(10, 5)], [false], nil),
        ("older than 10 s: ignored", [(0, 10_000_000_001), (0, 10_000_000_000)], [false, true], 5_000_000_000),
    ]

    @Test(arguments: cases.indices)
    func smoothsEchoes(_ index: Int) {
        let (what, echoes, taken, expected) = Self.cases[index]
        var delay = PipeDelay()
        #expect(echoes.map { delay.echoed(sentAt: $0.0, now: $0.1) } == taken, "\(what)")
        #expect(delay.oneWayNanoseconds == expected, "\(what)")
    }
}
