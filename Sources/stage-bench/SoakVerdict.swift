import Foundation

/// PASS or FAIL, with every reason, from what the soak saw.
struct SoakVerdict {
    /// RSS and fds may grow this much after the warm-up (median of the first minute after it
    /// against the median of the last minute).
    static let flatTolerance = 0.10
    /// Drop reasons that mean a defect (no client of the soak sends anything malformed).
    static let defectDrops: Set<String> = ["srtp_auth_failed", "srtp_error", "malformed_rtp", "malformed_rtcp", "unknown_rid"]
    /// Clients must be back this soon after the restarted server is spawned.
    static let backWithin = 5.0

    private(set) var failures: [String] = []
    private(set) var lines: [String] = []

    init(options: SoakBench, state: SoakState) {
        if let crashed = state.crashed { failures.append("crash: \(crashed)") }
        let samples = state.samples
        let baseline = samples.filter { $0.second > options.warmup * 60 && $0.second <= options.warmup * 60 + 60 }
        let final = samples.suffix(60)
        for (name, value) in [("RSS MiB", \SoakSample.rssMiB), ("fds", \SoakSample.fds.asDouble)] as [(String, KeyPath<SoakSample, Double>)] {
            let before = median(baseline.map { $0[keyPath: value] }), after = median(final.map { $0[keyPath: value] })
            let growth = after / before - 1
            let change = String(format: "%+.1f %%", growth * 100)
            lines.append("\(name) after warm-up " + String(format: "%.1f → last minute %.1f", before, after) + " (\(change))")
            if !(growth <= Self.flatTolerance) { failures.append("\(name) grew \(change) after warm-up (limit +10 %)") }
        }
        lines.append("vanished subscribers: \(state.vanishes.count); longest until the server reaped one: ~\(state.longestReap) s "
                     + "(consent timeout \(SoakState.consentSeconds) s, samples once a second)")
        if !state.peerViolations.isEmpty {
            failures.append("peers not back to the live count within \(SoakState.consentSeconds + SoakState.reapGraceSeconds) s "
                            + "(\(state.peerViolations.count) samples), first: \(state.peerViolations[0])")
        }
        if let last = samples.last {
            let loss = last.received + last.lost > 0 ? Double(last.lost) * 100 / Double(last.received + last.lost) : 0
            let perSecond = String(format: "%.0f", Double(last.sent) / Double(max(last.second, 1)))
            lines.append("packets sent \(last.sent) (\(perSecond)/s: the 20 ms pacer's ticks stretch on a busy machine), received by subscribers \(last.received), lost \(last.lost) "
                         + "(\(SoakReport.percent(last.lost, of: last.received + last.lost)); mute, join, leave and vanish excluded)")
            if loss > options.maxLoss { failures.append(String(format: "loss %.3f %% > %.3f %%", loss, options.maxLoss)) }
            if last.received == 0 { failures.append("subscribers received nothing") }
            // The last sample the server answered /metrics for (none after a crash).
            let drops = samples.last { $0.peers >= 0 }?.drops ?? [:]
            lines.append("drops by reason, whole load: \(SoakReport.dropText(drops, since: [:]))")
            let defects = drops.filter { Self.defectDrops.contains($0.key) }
            if !defects.isEmpty { failures.append("drops that mean a defect: \(SoakReport.dropText(defects, since: [:]))") }
        }
        if !state.churnFailures.isEmpty {
            failures.append("\(state.churnFailures.count) joins failed, first: \(state.churnFailures[0])")
        }
    }

    mutating func add(restart: SoakRestart.Result) {
        if restart.integrity != "ok" { failures.append("PRAGMA integrity_check: \(restart.integrity)") }
        if !restart.missing.isEmpty {
            failures.append("\(restart.missing.count) acknowledged writes missing after restart, first: \(restart.missing[0])")
        }
        if let error = restart.error { failures.append("restart: \(error)") }
        if let back = restart.backAfterSpawn, back <= Self.backWithin {} else {
            failures.append("clients not back within \(Self.backWithin) s of the restart")
        }
    }

    var passed: Bool { failures.isEmpty }

    var report: String {
        (lines + [passed ? "PASS" : "FAIL"] + failures.map { "  - \($0)" }).joined(separator: "\n")
    }
}

extension Int {
    /// For key paths that read an integer field as a `Double`.
    var asDouble: Double { Double(self) }
}
