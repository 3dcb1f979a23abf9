import Foundation

/// The processes the composition benchmark starts or watches: `stage join` publishers, the
/// server's `stage-compositor` child (found in /proc), and a reference command run to its end
/// with its own CPU time from `wait4`.
enum ComposeProcesses {
    /// `stage join --strategy broadcast` beside this tool: test camera (frame stamps), tone,
    /// VP8 simulcast on; output to `log`.
    static func startPublisher(token: String, size: String, fps: Int, log: URL) throws -> Process {
        let stage = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("stage")
        let process = Process()
        process.executableURL = stage
        process.arguments = ["join", "--token", token, "--strategy", "broadcast", "--size", size, "--fps", "\(fps)",
                             "--simulcast", "on", "--camera", "test", "--mic", "tone", "--status-interval", "0"]
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// SIGTERM, then SIGKILL after 3 s (a child of a Swift process may have SIGTERM blocked).
    static func stop(_ process: Process) {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = ContinuousClock.now + .seconds(3)
        while process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// The newest running child of `parent` whose name starts with `stage-composit` (comm is
    /// cut at 15 characters).
    static func compositorPid(parent: Int32) -> Int32? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        var best: (pid: Int32, start: Int)?
        for entry in entries {
            guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { continue }
            let name = stat[stat.index(after: open)..<close]
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            // fields[0] state, [1] ppid, [19] starttime (stat fields 3, 4, 22).
            guard name.hasPrefix("stage-composit"), fields.count > 19, fields[0] != "Z",
                  Int32(fields[1]) == parent, let start = Int(fields[19]) else { continue }
            if best == nil || start > best!.start { best = (pid, start) }
        }
        return best?.pid
    }

    /// Peak resident set (VmHWM) of a process, MB.
    static func peakRSSMegabytes(pid: Int32) -> Double {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "") else { return .nan }
        return kilobytes / 1024
    }

    /// Runs `arguments[0]` (a path) to its end with stdout and stderr to `log`; returns its
    /// exit status and its own user + system CPU seconds and wall seconds (`wait4`'s rusage).
    static func runMeasured(_ arguments: [String], log: URL) throws -> (status: Int32, cpuSeconds: Double, wallSeconds: Double) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Not our other descriptors: a server's lifeline pipe must close when this process ends.
        let open = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap { Int32($0) }
        for fd in open where fd > 2 && fcntl(fd, F_GETFD) >= 0 { posix_spawn_file_actions_addclose(&actions, fd) }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let started = ContinuousClock.now
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, argv, envp)
        guard spawned == 0 else { throw BenchError("posix_spawn \(arguments[0]): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let wall = (ContinuousClock.now - started) / .seconds(1)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (exit, seconds(usage.ru_utime) + seconds(usage.ru_stime), wall)
    }

    /// Runs a command to its end, discarding its output; throws unless it exits 0.
    static func runQuietly(_ arguments: [String], log: URL) throws {
        let result = try runMeasured(arguments, log: log)
        guard result.status == 0 else {
            let tail = (try? String(contentsOf: log, encoding: .utf8)).map { String($0.suffix(1500)) } ?? ""
            throw BenchError("\(arguments[0]) exited \(result.status): \(tail)")
        }
    }
}
