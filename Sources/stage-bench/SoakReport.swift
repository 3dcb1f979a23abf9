import Foundation

/// The soak's per-minute table.
enum SoakReport {
    /// Writes a line to stdout unbuffered, so a row a minute shows at once in a redirected file.
    static func emit(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func header(_ options: SoakBench) -> String {
        let rates = [options.rate / 4, options.rate / 2, options.rate].map(String.init).joined(separator: "/")
        return """
            soak: \(options.publishers) publishers (simulcast q/h/f at \(rates) pkt/s) × \(options.subscribers) subscribers, \
            \(options.minutes) min; churn 1 subscriber/s (1 in \(SoakBench.vanishEvery) vanishes), a mute change every \(SoakBench.muteEvery) s
            | min | RSS MiB | fds | peers srv/live | consumers srv/live | fwd pkt/s | loss | drops (this minute) |
            |---|---|---|---|---|---|---|---|
            """
    }

    /// The row of minute `minute` (its last sample, and deltas over its 60 samples).
    static func row(samples: [SoakSample], minute: Int) -> String {
        guard let last = samples.last else { return "" }
        let first = samples.count > 60 ? samples[samples.count - 61] : nil
        let seconds = Double(last.second - (first?.second ?? 0))
        let received = last.received - (first?.received ?? 0)
        let lost = last.lost - (first?.lost ?? 0)
        var forwarded = String(format: "%.0f", Double(received) / max(seconds, 1))
        if let server = last.forwarded { forwarded += String(format: " (srv %.0f)", Double(server - (first?.forwarded ?? 0)) / max(seconds, 1)) }
        return "| \(minute) | \(String(format: "%.1f", last.rssMiB)) | \(last.fds) | \(last.peers)/\(last.livePeers) | "
            + "\(last.consumers)/\(last.liveConsumers) | \(forwarded) | \(percent(lost, of: received + lost)) | "
            + "\(dropText(last.drops, since: first?.drops ?? [:])) |"
    }

    static func percent(_ part: Int, of whole: Int) -> String {
        whole > 0 ? String(format: "%.3f %%", Double(part) * 100 / Double(whole)) : "–"
    }

    static func dropText(_ now: [String: Int], since before: [String: Int]) -> String {
        let deltas = now.compactMap { reason, count in count > before[reason, default: 0] ? "\(reason) \(count - before[reason, default: 0])" : nil }
        return deltas.isEmpty ? "none" : deltas.sorted().joined(separator: ", ")
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.filter { !$0.isNaN }.sorted()
    return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
}
