import Foundation

/// One process's or thread's stat line, /proc/<pid>/stat or /proc/<pid>/task/<tid>/stat
/// (proc(5)): "PID (COMMAND) STATE …", the command in parentheses and free to hold spaces and
/// parentheses itself, so the fields are read after the last ")".
public struct ProcStat: Sendable, Equatable {
    /// Field 3: R running, S sleeping, Z zombie (exited, not reaped yet), ….
    public let state: Character
    /// Fields 14 and 15, utime and stime, in clock ticks; nil when the line stops before them.
    public let userTicks: Double?
    public let systemTicks: Double?

    public init?(_ line: String) {
        guard let close = line.lastIndex(of: ")") else { return nil }
        let fields = line[line.index(after: close)...].split(separator: " ")
        guard let state = fields.first?.first else { return nil }
        self.state = state
        // Field 3 (state) is the first after the name: utime and stime are fields 14 and 15.
        let ticks = fields.count > 12 ? (Double(fields[11]), Double(fields[12])) : (nil, nil)
        userTicks = ticks.0
        systemTicks = ticks.1
    }

    /// The stat file at `path` (nil: no such process or thread, or not a stat line).
    public static func read(_ path: String) -> ProcStat? {
        (try? String(contentsOfFile: path, encoding: .utf8)).flatMap(ProcStat.init)
    }

    /// User and system time in seconds; nil when either field is missing.
    public func cpuSeconds(ticksPerSecond: Double = ProcStat.ticksPerSecond) -> Double? {
        guard ticksPerSecond > 0, let userTicks, let systemTicks else { return nil }
        return (userTicks + systemTicks) / ticksPerSecond
    }

    /// Clock ticks a second (`sysconf(_SC_CLK_TCK)`).
    public static var ticksPerSecond: Double { Double(sysconf(Int32(_SC_CLK_TCK))) }
}
