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
    /// The server's estimate of what the link carries towards us, in bits per second (0: none
    /// yet): `downlinkEstimate` on a subscription. Reported as `availableIncomingBitrate`.
    var availableIncomingBitrate: Int {
        get { incomingEstimate.load(ordering: .relaxed) }
        set { incomingEstimate.store(newValue, ordering: .relaxed) }
    }
    private let incomingEstimate = Atomic<Int>(0)
    /// What the server says we may send, in bits per second (0: nothing said yet): its REMB on
    /// a publish connection. Reported as `availableOutgoingBitrate`.
    var availableOutgoingBitrate: Int {
        get { outgoingEstimate.load(ordering: .relaxed) }
        set { outgoingEstimate.store(newValue, ordering: .relaxed) }
    }
    private let outgoingEstimate = Atomic<Int>(0)

    init(tracks: [ClientPeerConnection.Track], context: DTLSContext, ice: ICEConfiguration) {
        peer = ClientPeerConnection(tracks: tracks, context: context, eventLoop: MultiThreadedEventLoopGroup.singleton.next(), ice: ice)
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

    /// The `candidate-pair` statistics of the connection with its `local-candidate` and
    /// `remote-candidate` (W3C webrtc-stats §8.14, §8.15), as a browser reports them.
    func candidatePairStats() async -> [RTCStats] {
        let statistics = await peer.statistics()
        var values: [String: RTCStats.Value] = [
            "state": .string(statistics.pair == nil ? "in-progress" : "succeeded"), "nominated": .string(statistics.pair == nil ? "false" : "true"),
            "packetsSent": .number(Double(statistics.packetsSent)), "bytesSent": .number(Double(statistics.bytesSent)),
            "packetsReceived": .number(Double(statistics.packetsReceived)), "bytesReceived": .number(Double(statistics.bytesReceived)),
        ]
        if let rtt = statistics.currentRoundTripTime { values["currentRoundTripTime"] = .number(rtt) }
        if availableIncomingBitrate > 0 { values["availableIncomingBitrate"] = .number(Double(availableIncomingBitrate)) }
        if availableOutgoingBitrate > 0 { values["availableOutgoingBitrate"] = .number(Double(availableOutgoingBitrate)) }
        // Every gathered candidate, as a browser lists them; the pair points at the selected ones.
        let gathered = statistics.localCandidates.enumerated().map { Self.candidateStats($1, id: "local-candidate-\($0)", type: "local-candidate") }
        guard let pair = statistics.pair else { return [RTCStats(id: "candidate-pair", type: "candidate-pair", values: values)] + gathered }
        values["localCandidateId"] = .string("local-candidate")
        values["remoteCandidateId"] = .string("remote-candidate")
        values["localAddress"] = .string("\(pair.local.address)")
        values["remoteAddress"] = .string("\(pair.remote.address)")
        return [RTCStats(id: "candidate-pair", type: "candidate-pair", values: values),
                Self.candidateStats(pair.local, id: "local-candidate", type: "local-candidate"),
                Self.candidateStats(pair.remote, id: "remote-candidate", type: "remote-candidate")] + gathered
    }

    /// An `RTCIceCandidateStats` (W3C webrtc-stats §8.15): address, port, protocol, candidateType,
    /// and for relayed candidates the relayProtocol to the TURN server.
    private static func candidateStats(_ candidate: ICECandidate, id: String, type: String) -> RTCStats {
        var values: [String: RTCStats.Value] = [
            "address": .string(candidate.address.ip.description), "port": .number(Double(candidate.address.port)),
            "protocol": .string(candidate.transport.rawValue), "candidateType": .string(candidate.type.rawValue),
            "priority": .number(Double(candidate.priority)),
        ]
        if let tcpType = candidate.tcpType { values["tcpType"] = .string(tcpType.rawValue) }
        if let relay = candidate.relayProtocol { values["relayProtocol"] = .string(relay.rawValue) }
        return RTCStats(id: id, type: type, values: values)
    }
}
