import Foundation
import StageSubprocess
import Testing

/// `ProcStat`: the state and utime/stime (proc(5) fields 3, 14 and 15) after a command name that
/// may hold spaces and parentheses; nil for what is not a stat line.
struct ProcStatTests {
    /// (stat line, state, CPU seconds at 100 ticks a second).
    static let cases: [(line: String, state: Character?, seconds: Double?)] = [
        ("1234 (media-w0) S 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20 0", "S", 3.0),
        ("1234 (a (b) c) R 1 2 3 4 5 6 7 8 9 10 100 0 0 0", "R", 1.0),
        ("1234 (short) Z 1 2 3", "Z", nil),
        ("1234 (x) S 1 2 3 4 5 6 7 8 9 10 abc 1", "S", nil),
        ("no parenthesis at all", nil, nil),
        ("1234 (nothing after)", nil, nil),
    ]

    @Test(arguments: cases.indices)
    func readsStateAndTicks(_ index: Int) {
        let (line, state, seconds) = Self.cases[index]
        let stat = ProcStat(line)
        #expect(stat?.state == state, "\(line)")
        #expect(stat?.cpuSeconds(ticksPerSecond: 100) == seconds, "\(line)")
    }

    @Test("this process's stat file and its main thread's are there and parse; a thread id 0 is not")
    func readsThisProcess() throws {
        let process = try #require(ProcStat.read("/proc/self/stat"))
        #expect("RSD".contains(process.state), "a living process: \(process.state)")
        let thread = try #require(ProcStat.read("/proc/self/task/\(getpid())/stat"))
        #expect((thread.cpuSeconds() ?? -1) >= 0)
        #expect(ProcStat.read("/proc/self/task/0/stat") == nil)
    }
}
