import NIOPosix
import StageTransport
import Synchronization

/// What the publish and the subscribe connections share: the peer connection on the shared
/// event loop, the offer, failing once when the server goes quiet or closes it, and its
/// `candidate-pair` statistics.
final class MediaConnection: @unchecked Sendable {
    let peer: ClientPeerConnection
    /// Called once (from any thread) when the connection fails after connecting.
    var onFailure: (@Sendable (String) -> Void)?
    private let failed = Atomic<Bool>(false)
    var hasFailed: Bool { failed.load(ordering: .relaxed) }

    init(tracks: [ClientPeerConnection.Track], context: DTLSContext) {
        peer = ClientPeerConnection(tracks: tracks, context: context, eventLoop: MultiThreadedEventLoopGroup.singleton.next())
    }

    /// Opens the socket and writes the offer.
    func prepareOffer() async throws -> String {
        try await peer.open()
        return peer.offer()
    }

    /// Fails, after `stop`, when the server goes quiet or closes the connection. Call on the event loop.
    func failOnLoss(silence: String, closed: String, stop: @escaping @Sendable () -> Void = {}) {
        peer.onTimeout = { [weak self] in self?.fail(silence, stop: stop) }
        peer.onClosedByServer = { [weak self] in self?.fail(closed, stop: stop) }
    }

    private func fail(_ reason: String, stop: () -> Void) {
        guard !failed.exchange(true, ordering: .relaxed) else { return }
        stop()
        onFailure?(reason)
    }

    /// The `candidate-pair` statistics of the connection (W3C webrtc-stats §8.14).
    func candidatePairStats() async -> RTCStats {
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
