import StageTransport

/// The `candidate-pair` statistics of a peer connection (W3C webrtc-stats §8.14).
enum CandidatePairStats {
    static func collect(_ peer: ClientPeerConnection) async -> RTCStats {
        let statistics = await peer.statistics()
        var values: [String: RTCStats.Value] = [
            "state": .string("succeeded"), "nominated": .string("true"),
            "packetsSent": .number(Double(statistics.packetsSent)), "bytesSent": .number(Double(statistics.bytesSent)),
            "packetsReceived": .number(Double(statistics.packetsReceived)), "bytesReceived": .number(Double(statistics.bytesReceived)),
        ]
        if let rtt = statistics.currentRoundTripTime { values["currentRoundTripTime"] = .number(rtt) }
        if let local = statistics.localAddress { values["localAddress"] = .string(local) }
        if let remote = statistics.remoteAddress { values["remoteAddress"] = .string(remote) }
        return RTCStats(id: "candidate-pair", type: "candidate-pair", values: values)
    }
}
