import NIOCore
import StageMedia
import StageTransport
import StageWire

/// The subscribe peer connection to one publisher: receives its audio (and video, unless the
/// subscription is audio-only), decodes it and hands it to the streams' devices; sends receiver
/// reports, NACKs and keyframe requests back, and transport-cc feedback (when each packet
/// arrived, for the server's estimate of our downlink). Everything runs on the connection's event loop.
final class MediaSubscriber: @unchecked Sendable {
    /// What a subscriber needs of a received `StageStream`, taken on the main actor.
    struct Track: Sendable {
        var streamId: String
        var kind: MediaKind
        var device: any StageDevice

        @MainActor init(_ stream: StageStream) {
            streamId = stream.streamId
            kind = stream.kind
            device = stream.device
        }
    }

    let publisherId: String
    let connection: MediaConnection
    private var peer: ClientPeerConnection { connection.peer }
    var receivesVideo: Bool { video != nil }
    private let video: VideoTrackReceiver?
    private let audio: AudioTrackReceiver?
    private let ssrc = UInt32.random(in: 1...UInt32.max)
    private var timers: [RepeatedTask] = []
    /// Arrivals by transport-wide sequence number, reported every `feedbackInterval`.
    private var arrivals = TransportFeedbackRecorder()
    /// libwebrtc's default: often enough for the sender to see a queue grow within a few reports.
    static let feedbackInterval: TimeAmount = .milliseconds(100)
    /// The SSRC the feedback names as its media source (the draft leaves it to the sender; ours ignores it).
    private var lastMediaSSRC: UInt32 = 0

    init(publisherId: String, streams: [Track], context: DTLSContext, ice: ICEConfiguration) throws {
        self.publisherId = publisherId
        let videoTrack = streams.first { $0.kind == .video }
        let audioTrack = streams.first { $0.kind == .audio }
        video = try videoTrack.map { try VideoTrackReceiver(streamId: $0.streamId, device: $0.device as? ImageDevice) }
        audio = try audioTrack.map { try AudioTrackReceiver(streamId: $0.streamId, device: $0.device as? AudioDevice) }
        var tracks: [ClientPeerConnection.Track] = []
        if audio != nil { tracks.append(.init(mid: "0", kind: .audio, direction: .recvonly)) }
        if video != nil { tracks.append(.init(mid: String(tracks.count), kind: .video, direction: .recvonly)) }
        connection = MediaConnection(tracks: tracks, context: context, ice: ice)
    }

    func connect(answer: String) async throws {
        try await peer.eventLoop.submit { [self] in
            peer.onRTP = { [weak self] packet in self?.receiveRTP(UnsafeRawBufferPointer(packet)) }
            peer.onRTCP = { [weak self] packet in self?.receiveRTCP(UnsafeRawBufferPointer(packet)) }
        }.get()
        try await peer.connect(answer: answer, timeout: .seconds(5))
        try await peer.eventLoop.submit { [self] in
            connection.failOnLoss(silence: "no packets from the server for 3 s", closed: "the server closed the subscribe connection")
            let loop = peer.eventLoop
            timers.append(loop.scheduleRepeatedTask(initialDelay: .milliseconds(20), delay: .milliseconds(20)) { [weak self] _ in self?.tick() })
            timers.append(loop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { [weak self] _ in self?.sendReceiverReport() })
            timers.append(loop.scheduleRepeatedTask(initialDelay: Self.feedbackInterval, delay: Self.feedbackInterval) { [weak self] _ in
                self?.sendTransportFeedback()
            })
        }.get()
    }

    private var rttMicros: UInt64 { UInt64((peer.currentRoundTripTime ?? 0.05) * 1_000_000) }

    private func receiveRTP(_ packet: UnsafeRawBufferPointer) {
        guard let (header, payload) = try? RTPHeader.parse(packet) else { return }
        let now = MediaClock.nowMicros()
        if let number = try? header.extensionValue(RTPTransportSequenceNumber.self, id: ClientPeerConnection.transportWideExtensionID, in: packet) {
            arrivals.record(number.value, at: Int64(now))
            lastMediaSSRC = header.ssrc
        }
        if header.payloadType == ClientPeerConnection.payloadTypes[.video] {
            video?.receive(header: header, packet: packet, payload: payload, nowMicros: now, rttMicros: rttMicros)
        } else if header.payloadType == ClientPeerConnection.retransmissionPayloadType {
            video?.receiveRetransmission(header: header, packet: packet, payload: payload, nowMicros: now, rttMicros: rttMicros)
        } else if header.payloadType == ClientPeerConnection.payloadTypes[.audio] {
            audio?.receive(header: header, packet: packet, payload: payload, nowMicros: now)
        }
    }

    private func receiveRTCP(_ packet: UnsafeRawBufferPointer) {
        let now = MediaClock.nowMicros()
        guard let packets = try? RTCPPacket.parseCompound(packet) else { return }
        for case .senderReport(let report) in packets {
            video?.senderReport(report, nowMicros: now)
            audio?.senderReport(report, nowMicros: now)
        }
    }

    /// Every 20 ms of the monotonic clock, one audio frame is played out. NIO's repeated task
    /// runs 20 ms after the previous run *ended*, so it slips a little each time; counting
    /// play-out from the clock instead keeps it at 50 frames a second (else the jitter buffer
    /// fills to its maximum delay and then drops).
    private var nextPlayOutMicros: UInt64 = 0

    private func tick() {
        let now = MediaClock.nowMicros()
        if nextPlayOutMicros == 0 || now > nextPlayOutMicros + 200_000 { nextPlayOutMicros = now }
        while now >= nextPlayOutMicros {
            audio?.playOut(nowMicros: now)
            nextPlayOutMicros += 20_000
        }
        guard let feedback = video?.feedback(senderSSRC: ssrc, nowMicros: now, rttMicros: rttMicros), !feedback.isEmpty,
              let compound = try? RTCPPacket.serializeCompound(feedback) else { return }
        compound.withUnsafeBytes { _ = peer.sendRTCP($0) }
    }

    /// What arrived since the last feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1).
    private func sendTransportFeedback() {
        for feedback in arrivals.feedback(senderSSRC: ssrc, mediaSSRC: lastMediaSSRC) {
            guard let bytes = try? RTCPPacket.transportCCFeedback(feedback).serialized() else { continue }
            bytes.withUnsafeBytes { _ = peer.sendRTCP($0) }
        }
    }

    /// A receiver report per received stream (RFC 3550 §6.4.2), once a second.
    private func sendReceiverReport() {
        let now = MediaClock.nowMicros()
        let blocks = [video?.reportBlock(nowMicros: now), audio?.reportBlock(nowMicros: now)].compactMap { $0 }
        guard !blocks.isEmpty,
              let compound = try? RTCPPacket.serializeCompound([.receiverReport(RTCPReceiverReport(ssrc: ssrc, reports: blocks))])
        else { return }
        compound.withUnsafeBytes { _ = peer.sendRTCP($0) }
    }

    func close() async {
        try? await peer.eventLoop.submit { [self] in
            for timer in timers { timer.cancel() }
            timers = []
            peer.onRTP = nil
            peer.onRTCP = nil
        }.get()
        await peer.close()
    }

    /// `inbound-rtp` and `candidate-pair` statistics of one received stream.
    func stats(streamId: String) async -> [RTCStats] {
        let inbound = try? await peer.eventLoop.submit { [self] in
            var stats: [RTCStats] = []
            if let video, video.streamId == streamId { stats.append(video.stats()) }
            if let audio, audio.streamId == streamId { stats.append(audio.stats()) }
            return stats
        }.get()
        return (inbound ?? []) + (await connection.candidatePairStats())
    }
}
