import Foundation
import StageKit

/// The live status of `stage join`: every few seconds one block that reads at a glance — who is
/// on stage, what is published and received, with bitrate, loss and round-trip time.
@MainActor
final class StatusView: StageRenderer {
    private var participants: [String: (info: ParticipantInfo, streams: [StageStream])] = [:]
    private var order: [String] = []
    private var previousBytes: [String: (bytes: Double, at: ContinuousClock.Instant)] = [:]
    /// Per audio stream (local or received), its level since the last block.
    private var meters: [ObjectIdentifier: AudioLevelMeter] = [:]

    func stage(_ stage: Stage, participantDidJoin participant: ParticipantInfo) { update(participant) }
    func stage(_ stage: Stage, participantDidLeave participant: ParticipantInfo) {
        participants[participant.participantId] = nil
        order.removeAll { $0 == participant.participantId }
    }
    func stage(_ stage: Stage, participant: ParticipantInfo, didChange publishState: ParticipantPublishState) { update(participant) }
    func stage(_ stage: Stage, participant: ParticipantInfo, didChange subscribeState: ParticipantSubscribeState) { update(participant) }
    func stage(_ stage: Stage, participant: ParticipantInfo, didAdd streams: [StageStream]) {
        update(participant)
        participants[participant.participantId]?.streams += streams
        for stream in streams where stream.kind == .audio {
            let meter = AudioLevelMeter()
            meters[ObjectIdentifier(stream)] = meter
            (stream.device as? AudioDevice)?.setOnStatsCallback { meter.record($0) }
        }
    }
    func stage(_ stage: Stage, participant: ParticipantInfo, didRemove streams: [StageStream]) {
        update(participant)
        participants[participant.participantId]?.streams.removeAll { streams.contains($0) }
        for stream in streams where meters.removeValue(forKey: ObjectIdentifier(stream)) != nil {
            (stream.device as? AudioDevice)?.setOnStatsCallback(nil)
        }
    }

    private func update(_ participant: ParticipantInfo) {
        if participants[participant.participantId] == nil { order.append(participant.participantId) }
        participants[participant.participantId] = (participant, participants[participant.participantId]?.streams ?? [])
    }

    /// Prints the status block now; with `json`, one `{"event":"status",…}` object per stream
    /// (its summary and the network path in use) for scripts.
    func render(json: Bool = false) async {
        var lines: [String] = []
        for id in order {
            guard let (info, streams) = participants[id] else { continue }
            let name = (info.userId.isEmpty ? info.participantId : info.userId) + (info.isLocal ? " (you)" : "")
            let state = info.isLocal ? "publish \(info.publishState.rawValue)" : "subscribe \(info.subscribeState.rawValue)"
            if !json { lines.append("  \(name): \(state)") }
            for stream in streams {
                let stats = await stream.rtcStats()
                var text = summary(stats, key: "\(id)/\(stream.streamId)")
                if let level = meters[ObjectIdentifier(stream)]?.takeReading() { text += ", " + level }
                if json {
                    var object = ["event": "status", "participantId": info.participantId, "userId": info.userId, "isLocal": String(info.isLocal),
                                  "streamId": stream.streamId, "kind": stream.kind.rawValue, "summary": text,
                                  "time": Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true))]
                    object["path"] = Self.path(stats)
                    object["downlinkEstimate"] = Self.downlinkEstimate(stats).map { String(Int($0)) }
                    object["uplinkEstimate"] = Self.uplinkEstimate(stats).map { String(Int($0)) }
                    object["candidates"] = Self.gathered(stats)
                    // Counters for scripts: frames encoded (the top layer of a simulcast stream) or decoded so far.
                    let encoded = stats.filter { $0.type == "outbound-rtp" }.compactMap { $0["framesEncoded"]?.number }.max()
                    let decoded = stats.filter { $0.type == "inbound-rtp" }.compactMap { $0["framesDecoded"]?.number }.max()
                    object["framesEncoded"] = encoded.map { String(Int($0)) }
                    // What a publisher's encoders aim for (its bitrate controller: REMB, loss, transport-cc delay).
                    object["targetBitrate"] = stats.filter { $0.type == "outbound-rtp" }.compactMap { $0["targetBitrate"]?.number }.max()
                        .map { String(Int($0)) }
                    object["framesDecoded"] = decoded.map { String(Int($0)) }
                    // Simulcast layers being encoded now (dynacast pauses those no subscriber receives).
                    let rids = stats.filter { $0.type == "outbound-rtp" && $0["active"]?.description != "false" }.compactMap { $0["rid"]?.description }
                    if !rids.isEmpty { object["activeLayers"] = rids.joined(separator: ",") }
                    object["frameWidth"] = stats.filter { $0.type == "inbound-rtp" }.compactMap { $0["frameWidth"]?.number }.max().map { String(Int($0)) }
                    // Loss and its repair (RFC 4585 NACK and PLI, RFC 4588 RTX); a publisher's counts are per stream, repeated in each layer.
                    // Freezes (W3C rule; longFreezeCount: those of 500 ms or more) and audio concealment (Opus FEC or PLC).
                    for counter in ["nackCount", "pliCount", "framesDropped", "decodeErrors", "retransmittedPacketsSent", "retransmittedPacketsReceived",
                                    "freezeCount", "longFreezeCount", "totalSamplesReceived", "concealedSamples", "concealmentEvents"] {
                        object[counter] = stats.compactMap { $0[counter]?.number }.max().map { String(Int($0)) }
                    }
                    for seconds in ["totalFreezesDuration", "longestFreezeDuration"] {
                        object[seconds] = stats.compactMap { $0[seconds]?.number }.max().map { String(format: "%.3f", $0) }
                    }
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                    lines.append(String(decoding: (try? encoder.encode(object)) ?? Data(), as: UTF8.self))
                } else {
                    lines.append("    \(stream.streamId) [\(stream.kind.rawValue)\(stream.isMuted ? ", muted" : "")] " + text)
                }
            }
        }
        if json {
            if !lines.isEmpty { print(lines.joined(separator: "\n")) }
        } else {
            print("── status \(Date().formatted(date: .omitted, time: .standard)) ──\n" + (lines.isEmpty ? "  (nobody publishes)" : lines.joined(separator: "\n")))
        }
        fflushStdout()
    }

    private func summary(_ stats: [RTCStats], key: String) -> String {
        guard !stats.isEmpty else { return "no media" }
        var parts: [String] = []
        let outbound = stats.filter { $0.type == "outbound-rtp" }, inbound = stats.filter { $0.type == "inbound-rtp" }
        let bytes = (outbound + inbound).compactMap { ($0["bytesSent"] ?? $0["bytesReceived"])?.number }.reduce(0, +)
        let now = ContinuousClock.now
        if let previous = previousBytes[key] {
            let seconds = (now - previous.at) / .seconds(1)
            if seconds > 0 { parts.append(String(format: "%.0f kbps", (bytes - previous.bytes) * 8 / seconds / 1000)) }
        }
        previousBytes[key] = (bytes, now)
        let layers = outbound.compactMap { stat -> String? in
            guard let width = stat["frameWidth"]?.number, let height = stat["frameHeight"]?.number, width > 0 else { return nil }
            return (stat["rid"].map { "\($0)=" } ?? "") + "\(Int(width))x\(Int(height))" + (stat["active"]?.description == "false" ? " (paused)" : "")
        }
        if !layers.isEmpty { parts.append("sending " + layers.joined(separator: " ")) }
        for stat in inbound {
            if let width = stat["frameWidth"]?.number, width > 0, let height = stat["frameHeight"]?.number {
                parts.append("\(Int(width))x\(Int(height)) \(Int(stat["framesDecoded"]?.number ?? 0)) frames")
            }
            let received = stat["packetsReceived"]?.number ?? 0, lost = stat["packetsLost"]?.number ?? 0
            parts.append(String(format: "loss %.1f%%", received + lost > 0 ? max(0, lost) / (received + lost) * 100 : 0))
            if let freezes = stat["freezeCount"]?.number, freezes > 0 {
                parts.append(String(format: "%d freezes (%.1f s)", Int(freezes), stat["totalFreezesDuration"]?.number ?? 0))
            }
            if let concealed = stat["concealedSamples"]?.number, let total = stat["totalSamplesReceived"]?.number, total > 0 {
                parts.append(String(format: "concealed %.1f%%", concealed / total * 100))
            }
        }
        if let rtt = stats.first(where: { $0.type == "candidate-pair" })?["currentRoundTripTime"]?.number {
            parts.append(String(format: "rtt %.1f ms", rtt * 1000))
        }
        if let estimate = Self.downlinkEstimate(stats) { parts.append(String(format: "server's downlink estimate %.0f kbps", estimate / 1000)) }
        if let estimate = Self.uplinkEstimate(stats) { parts.append(String(format: "server's uplink estimate %.0f kbps", estimate / 1000)) }
        if let path = Self.path(stats) { parts.append("path \(path)") }
        return parts.joined(separator: ", ")
    }

    /// The server's estimate of the link towards us on this subscription (`downlinkEstimate`), in bits per second.
    private static func downlinkEstimate(_ stats: [RTCStats]) -> Double? {
        stats.first(where: { $0.type == "candidate-pair" })?["availableIncomingBitrate"]?.number
    }

    /// What the server lets us send on this publish connection (its REMB), in bits per second.
    private static func uplinkEstimate(_ stats: [RTCStats]) -> Double? {
        stats.first(where: { $0.type == "candidate-pair" })?["availableOutgoingBitrate"]?.number
    }

    /// The selected candidate pair: `host udp 192.168.1.2:5000 → host udp 203.0.113.10:7880`.
    private static func path(_ stats: [RTCStats]) -> String? {
        guard let pair = stats.first(where: { $0.type == "candidate-pair" }),
              let local = stats.first(where: { $0.id == pair["localCandidateId"]?.description }),
              let remote = stats.first(where: { $0.id == pair["remoteCandidateId"]?.description }) else { return nil }
        return "\(describe(local)) → \(describe(remote))"
    }

    /// The candidates gathered for the offer, `; `-separated (`--json` status objects).
    private static func gathered(_ stats: [RTCStats]) -> String? {
        let candidates = stats.filter { $0.type == "local-candidate" && $0.id.hasPrefix("local-candidate-") }
        return candidates.isEmpty ? nil : candidates.map(describe).joined(separator: "; ")
    }

    /// `host udp 192.0.2.1:5000`, `relay udp 198.51.100.2:49152 via TURN/tcp`, `host tcp …`.
    private static func describe(_ candidate: RTCStats) -> String {
        var text = "\(candidate["candidateType"] ?? .string("?")) \(candidate["protocol"] ?? .string("?"))"
        let address = candidate["address"]?.description ?? "?"
        text += " " + (address.contains(":") ? "[\(address)]" : address) + ":\(candidate["port"] ?? .number(0))"
        if let relay = candidate["relayProtocol"] { text += " via TURN/\(relay)" }
        return text
    }
}
