import ArgumentParser
import Foundation

/// `stage-bench network --scenario NAME --png PATH`: one shaped-link scenario with its reference
/// run, printed as a timeline and drawn as a PNG. The scenarios run on the interop suite's
/// harness (`Tests/interop/netlab.py`: network namespaces joined by veth pairs, removed on exit
/// even after a failure; links shaped by `linkem.py` in user space, as this kernel has no netem),
/// so the benchmark and its test run the same code. This command starts the scenario's script
/// with the interop virtualenv's Python and the `stage-server` and `stage` built beside it.
struct NetworkBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "network",
        abstract: "A shaped-link scenario (needs root and the interop virtualenv with matplotlib): timeline and PNG plot, beside its reference run.",
        discussion: Scenario.allCases.map { "\($0.rawValue): \($0.summary)" }.joined(separator: "\n"))

    enum Scenario: String, CaseIterable, ExpressibleByArgument {
        case downlinkStep = "downlink-step"
        case uplinkStep = "uplink-step"
        case rttLoss = "rtt-loss"
        case jitterLoss = "jitter-loss"
        case manySubscribers = "many-subscribers"

        var summary: String {
            switch self {
            case .downlinkStep: "a CLI guest's downlink 2.5 Mbps → 300 kbps → back; reference: --no-downlink-adaptation"
            case .uplinkStep: "a Chromium WHIP publisher's uplink 2.5 Mbps → 300 kbps → back with transport-cc; reference: REMB only"
            case .rttLoss: "200 ms RTT and 1 % loss on both legs of a CLI host and guest; reference: --no-loss-repair"
            case .jitterLoss: "5 % loss and 40 ± 10 ms jitter on both legs for 60 s; reference: --no-loss-repair"
            case .manySubscribers: "20 CLI guests on 150 kbps and 3 Mbps links in turn, then all 150 kbps; reference: --no-downlink-adaptation"
            }
        }

        /// The script under Tests/interop and its arguments before `--png`.
        var script: [String] {
            switch self {
            case .downlinkStep: ["bench_downlink_step.py"]
            case .uplinkStep: ["bench_uplink_step.py"]
            case .rttLoss: ["bench_bad_links.py", "--scenario", "rtt"]
            case .jitterLoss: ["bench_bad_links.py", "--scenario", "jitter"]
            case .manySubscribers: ["bench_many_subscribers.py"]
            }
        }
    }

    @Option(help: "The scenario (see the list above).")
    var scenario: Scenario

    @Option(help: "Where to write the plot (PNG).")
    var png: String

    @Option(help: "The Proscenium checkout holding Tests/interop and .venv-interop (scripts/setup.sh --interop).")
    var repository: String = "."

    func run() throws {
        let root = URL(fileURLWithPath: repository, isDirectory: true).standardizedFileURL
        let python = root.appendingPathComponent(".venv-interop/bin/python")
        let script = root.appendingPathComponent("Tests/interop").appendingPathComponent(scenario.script[0])
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw BenchError("no \(python.path): run scripts/setup.sh --interop in the checkout, or pass it with --repository")
        }
        guard FileManager.default.fileExists(atPath: script.path) else {
            throw BenchError("no \(script.path): pass the Proscenium checkout with --repository")
        }
        guard geteuid() == 0 else {
            throw BenchError("network: needs root (the scenario makes network namespaces and veth pairs)")
        }
        // The stage-server and stage CLI of the same build as this tool (/proc/self/exe: argv[0]
        // is a bare name when started through PATH).
        let binaries = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        for name in ["stage-server", "stage"] where !FileManager.default.isExecutableFile(atPath: binaries.appendingPathComponent(name).path) {
            throw BenchError("no \(name) beside stage-bench in \(binaries.path): build it (swift build -c release --product \(name))")
        }
        guard Self.exitStatus(python, ["-c", "import matplotlib"], environment: nil) == 0 else {
            throw BenchError("network: the plot needs matplotlib: \(root.path)/.venv-interop/bin/pip install matplotlib")
        }
        var environment = ProcessInfo.processInfo.environment
        environment["STAGE_SERVER_BIN"] = binaries.appendingPathComponent("stage-server").path
        environment["PATH"] = root.appendingPathComponent(".venv-interop/bin").path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        let png = URL(fileURLWithPath: png).standardizedFileURL.path
        let status = Self.exitStatus(python, [script.path] + scenario.script.dropFirst() + ["--png", png], environment: environment)
        guard status == 0 else { throw ExitCode(status) }
    }

    /// Runs `executable` with this terminal's output and waits for it.
    private static func exitStatus(_ executable: URL, _ arguments: [String], environment: [String: String]?) -> Int32 {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        do { try process.run() } catch { return 127 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
