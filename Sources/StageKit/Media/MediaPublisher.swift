import Foundation
import NIOCore
import StageMedia
import StageTransport
import StageWire

/// The publish peer connection of a stage: every local stream with a capture source is
/// captured, encoded (VP8 simulcast, Opus) and sent on one connection. Capture and encoding run
/// on one thread per track; packets go out on the connection's event loop.
final class MediaPublisher: @unchecked Sendable {
    /// What a publisher needs of a `LocalStageStream`, taken on the main actor.
    struct Track: Sendable {
        var streamId: String
        var kind: MediaKind
        var source: DeviceSource
        var configuration: LocalStageStreamConfiguration
        var muted: Bool
        var device: any StageDevice

        @MainActor init(_ stream: LocalStageStream) {
            streamId = stream.streamId
            kind = stream.kind
            source = stream.device.descriptor.source ?? .testPattern
            configuration = stream.configuration
            muted = stream.isMuted
            device = stream.device
        }
    }

    let connection: MediaConnection
    private var peer: ClientPeerConnection { connection.peer }
    private let senders: [any TrackSender]

    /// - Throws: when a track's source cannot be opened (a missing or unreadable file) or its encoder refuses the configuration.
    init(tracks: [Track], context: DTLSContext, ice: ICEConfiguration) throws {
        var senders: [any TrackSender] = []
        var peerTracks: [ClientPeerConnection.Track] = []
        for (index, track) in tracks.enumerated() {
            let mid = String(index)
            switch track.kind {
            case .video:
                let sender = try VideoTrackSender(track: track)
                senders.append(sender)
                peerTracks.append(.init(mid: mid, kind: .video, direction: .sendonly, ssrc: sender.ssrc,
                                        rids: sender.rids, trackId: track.streamId))
            case .audio:
                let sender = try AudioTrackSender(track: track)
                senders.append(sender)
                peerTracks.append(.init(mid: mid, kind: .audio, direction: .sendonly, ssrc: sender.ssrc, trackId: track.streamId))
            }
        }
        self.senders = senders
        connection = MediaConnection(tracks: peerTracks, context: context, ice: ice)
    }

    /// Connects with the server's answer, then starts capturing.
    func connect(answer: String) async throws {
        try await peer.connect(answer: answer, timeout: .seconds(5))
        let senders = self.senders
        let peer = self.peer
        let connection = self.connection
        let congestion = try await peer.eventLoop.submit {
            let congestion = NIOLoopBound(UplinkCongestion(), eventLoop: peer.eventLoop)
            peer.onRTCP = { packet in
                let now = MediaClock.nowMicros()
                for feedback in PublisherFeedback.parse(UnsafeRawBufferPointer(packet)) {
                    if case .estimate(let bitsPerSecond, _) = feedback { connection.availableOutgoingBitrate = bitsPerSecond }
                    if case .transportFeedback(let arrivals) = feedback,
                       let acked = congestion.value.feedback(arrivals, nowMicros: now) {
                        for sender in senders { sender.handle(.delayOveruse(ackedBitsPerSecond: acked), nowMicros: now) }
                    }
                    for sender in senders { sender.handle(feedback, nowMicros: now) }
                }
            }
            connection.failOnLoss(silence: "no answer from the server for 3 s", closed: "the server closed the publish connection") {
                for sender in senders { sender.stop() }
            }
            return congestion
        }.get()
        let send: @Sendable ([[UInt8]]) -> Void = { [weak peer] packets in
            guard let peer else { return }
            peer.eventLoop.execute {
                let now = MediaClock.nowMicros()
                for var packet in packets {
                    congestion.value.stamp(&packet, nowMicros: now)
                    packet.withUnsafeBytes { _ = peer.sendRTP($0, flush: false) }
                }
                peer.flush()
            }
        }
        let sendRTCP: @Sendable ([UInt8]) -> Void = { [weak peer] packet in
            guard let peer else { return }
            peer.eventLoop.execute { packet.withUnsafeBytes { _ = peer.sendRTCP($0) } }
        }
        for sender in senders { sender.start(send: send, sendRTCP: sendRTCP) }
    }

    func setMuted(streamId: String, muted: Bool) {
        for sender in senders where sender.streamId == streamId { sender.setMuted(muted) }
    }

    /// Dynacast (signaling `publishLayers`): encode only these simulcast layers of a video stream.
    func setActiveLayers(streamId: String, rids: Set<String>) {
        for case let sender as VideoTrackSender in senders where sender.streamId == streamId { sender.setActiveLayers(rids) }
    }

    func close() async {
        for sender in senders { sender.stop() }
        await peer.close()
    }

    /// `outbound-rtp` (one per simulcast layer) and `candidate-pair` statistics of a stream.
    func stats(streamId: String) async -> [RTCStats] {
        let outbound = senders.filter { $0.streamId == streamId }.flatMap { $0.stats() }
        return outbound + (await connection.candidatePairStats())
    }
}

/// One local track being captured and sent.
protocol TrackSender: AnyObject, Sendable {
    var streamId: String { get }
    func start(send: @escaping @Sendable ([[UInt8]]) -> Void, sendRTCP: @escaping @Sendable ([UInt8]) -> Void)
    func stop()
    func setMuted(_ muted: Bool)
    func handle(_ feedback: PublisherFeedback, nowMicros: UInt64)
    func stats() -> [RTCStats]
}
