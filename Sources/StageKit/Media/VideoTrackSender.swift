import StageDevices
import StageMedia
import StageTransport
import StageWire
import Synchronization

/// Captures one local video track, encodes it in simulcast layers (or one) and packetizes each
/// layer as its own RTP stream (RFC 7741), tagged with its rid when simulcast is on (RFC 8852).
final class VideoTrackSender: TrackSender, @unchecked Sendable {
    let streamId: String
    /// Simulcast rids, lowest quality first; empty when simulcast is off.
    let rids: [String]
    /// The SSRC the offer names: the one stream's without simulcast (with simulcast the offer names rids).
    let ssrc: UInt32
    /// The encoded layers by rid ("f" without simulcast); their `let`s are read from any thread.
    private let layers: [String: Layer]
    /// SSRC → rid, for feedback.
    private let ridsBySSRC: [UInt32: String]
    private let device: ImageDevice?
    private let framerate: Int
    private let control: Mutex<Control>
    private var thread: CaptureThread?

    // Touched only on the capture thread once started.
    private var source: any VideoSource
    private let encoder: SimulcastEncoder
    private var encoderBitrate = 0
    private var encoderActiveRids: Set<String>?
    private var lastSenderReport: UInt64 = 0

    struct Control {
        var muted: Bool
        var keyframeRids: Set<String> = []
        /// The layers the server says subscribers use (dynacast); nil until it says.
        var activeRids: Set<String>?
        var bitrate: BitrateController
        var layers: [String: LayerStats] = [:]
        var keyframeRequests = 0
        var nacks = 0
        /// Packets resent because the server asked (NACK), and their bytes.
        var retransmittedPackets = 0
        var retransmittedBytes = 0
        var history = SentPacketHistory()
        /// How packets reach the server, once started (for resending).
        var send: (@Sendable ([[UInt8]]) -> Void)?
    }

    /// One encoded layer, sent as its own RTP stream.
    private final class Layer {
        let ssrc: UInt32
        /// The header extensions its packets carry: the rid with simulcast (RFC 8852), the
        /// transport-wide number's placeholder (`UplinkCongestion`).
        let extensions: RTPExtensionBlockBuilder
        // Touched only on the capture thread once started.
        var packetizer = VP8Packetizer()
        var writer: RTPPacketWriter

        init(rid: String, simulcast: Bool) {
            let ssrc = UInt32.random(in: 1...UInt32.max)
            self.ssrc = ssrc
            var extensions = RTPExtensionBlockBuilder()
            if simulcast { try? extensions.set(id: ClientPeerConnection.ridExtensionID, value: Array(rid.utf8)) }
            self.extensions = UplinkCongestion.withPlaceholder(extensions)
            writer = RTPPacketWriter(ssrc: ssrc, payloadType: ClientPeerConnection.payloadTypes[.video] ?? 96,
                                     clockRate: RTPPacketWriter.videoClockRate)
        }
    }

    struct LayerStats {
        var packetsSent = 0
        var bytesSent = 0
        var framesEncoded = 0
        var keyFramesEncoded = 0
        var width = 0
        var height = 0
    }

    init(track: MediaPublisher.Track) throws {
        streamId = track.streamId
        device = track.device as? ImageDevice
        let video = track.configuration.video
        let source = try MediaSources.video(track.source, configuration: video)
        self.source = source
        framerate = max(1, Int(source.framerate.rounded()))
        let layers: [SimulcastLayer]
        if video.simulcastEnabled {
            layers = SimulcastLayer.defaults(for: source.width, height: source.height).sorted { $0.scaleDownBy > $1.scaleDownBy }
        } else {
            layers = [SimulcastLayer(rid: "f", scaleDownBy: 1, maxBitrateBps: video.maxBitrate)]
        }
        encoder = try SimulcastEncoder(width: source.width, height: source.height, layers: layers, framerate: framerate,
                                       temporalLayers: video.temporalLayers)
        rids = video.simulcastEnabled ? layers.map(\.rid) : []
        let built = layers.map { (rid: $0.rid, layer: Layer(rid: $0.rid, simulcast: video.simulcastEnabled)) }
        ssrc = built.first?.layer.ssrc ?? 1
        self.layers = Dictionary(uniqueKeysWithValues: built)
        ridsBySSRC = Dictionary(built.map { ($0.layer.ssrc, $0.rid) }, uniquingKeysWith: { first, _ in first })
        control = Mutex(Control(muted: track.muted,
                                bitrate: BitrateController(minBitrate: video.minBitrate, maxBitrate: video.maxBitrate,
                                                           nowMicros: MediaClock.nowMicros())))
    }

    func start(send: @escaping @Sendable ([[UInt8]]) -> Void, sendRTCP: @escaping @Sendable ([UInt8]) -> Void) {
        control.withLock { $0.send = send }
        let polls = UInt64(max(1, source.pollsPerFrame))
        thread = CaptureThread(name: "capture-\(streamId)", periodMicros: 1_000_000 / (UInt64(framerate) * polls)) { [self] now in
            captureAndSend(nowMicros: now, send: send, sendRTCP: sendRTCP)
        }
    }

    func stop() { thread?.stop() }

    /// On unmute the server asks for the keyframe receivers need (PLI), as for any resumed stream.
    func setMuted(_ muted: Bool) { control.withLock { $0.muted = muted } }

    /// Dynacast: only these layers are encoded from the next frame on (the lowest always is).
    func setActiveLayers(_ rids: Set<String>) { control.withLock { $0.activeRids = rids } }

    func handle(_ feedback: PublisherFeedback, nowMicros: UInt64) {
        let resend: ([[UInt8]], (@Sendable ([[UInt8]]) -> Void)?) = control.withLock { control in
            guard case .nack(let ssrc, let sequences) = feedback, rid(of: ssrc) != nil else { return ([], nil) }
            // RFC 4585 §6.2.1: the server lost these on the way in; send them again as they were.
            let packets = control.history.packets(ssrc: ssrc, sequences: sequences)
            control.nacks += sequences.count
            control.retransmittedPackets += packets.count
            control.retransmittedBytes += packets.reduce(0) { $0 + $1.count }
            return (packets, control.send)
        }
        if !resend.0.isEmpty { resend.1?(resend.0) }
        control.withLock { control in
            switch feedback {
            case .keyframeRequest(let ssrc):
                guard let rid = rid(of: ssrc) else { return }
                control.keyframeRids.insert(rid)
                control.keyframeRequests += 1
            case .estimate(let bitsPerSecond, let ssrcs) where ssrcs.isEmpty || ssrcs.contains(where: { rid(of: $0) != nil }):
                control.bitrate.receiverEstimate(bitsPerSecond, nowMicros: nowMicros)
            case .loss(let ssrc, let fraction) where rid(of: ssrc) != nil:
                control.bitrate.reportedLoss(fraction, nowMicros: nowMicros)
            case .delayOveruse(let ackedBitsPerSecond):
                control.bitrate.delayOverused(ackedBitsPerSecond: ackedBitsPerSecond, nowMicros: nowMicros)
            default:
                break
            }
        }
    }

    private func rid(of ssrc: UInt32) -> String? { ridsBySSRC[ssrc] }

    private func captureAndSend(nowMicros: UInt64, send: @Sendable ([[UInt8]]) -> Void, sendRTCP: @Sendable ([UInt8]) -> Void) {
        guard let frame = try? source.nextFrame(captureTimeMicros: nowMicros) else { return }
        device?.deliver(frame)
        let (muted, keyframes, target, activeRids) = control.withLock { control in
            control.bitrate.tick(nowMicros: nowMicros)
            defer { control.keyframeRids = [] }
            return (control.muted, control.keyframeRids, control.bitrate.target, control.activeRids)
        }
        if nowMicros >= lastSenderReport + 1_000_000 {
            lastSenderReport = nowMicros
            let ntpTime = MediaClock.ntpNow()
            for layer in layers.values where layer.writer.packetCount > 0 {
                let report = layer.writer.senderReport(ntpTime: ntpTime, nowMicros: nowMicros)
                if let compound = try? RTCPPacket.serializeCompound([.senderReport(report)]) { sendRTCP(compound) }
            }
        }
        guard !muted else { return }
        if target != encoderBitrate, (try? encoder.setTotalBitrate(target)) != nil { encoderBitrate = target }
        if let activeRids, activeRids != encoderActiveRids, !rids.isEmpty {
            encoder.setEnabled(rids: activeRids)
            encoderActiveRids = activeRids
        }
        guard let encoded = try? encoder.encode(frame, forceKeyframe: keyframes) else { return }
        var packets: [[UInt8]] = []
        var sent: [(rid: String, frame: EncodedVideoFrame, packets: Int, bytes: Int)] = []
        for (rid, output) in encoded {
            guard let layer = layers[rid] else { continue }
            let layerPackets = layer.writer.packets(payloads: layer.packetizer.packetize(output),
                                                    timestamp: layer.writer.timestamp(captureTimeMicros: frame.captureTimeMicros),
                                                    extensions: layer.extensions)
            packets += layerPackets
            sent.append((rid, output, layerPackets.count, layerPackets.reduce(0) { $0 + $1.count }))
        }
        send(packets)
        control.withLock { control in
            control.history.record(packets)
            for item in sent {
                var layer = control.layers[item.rid, default: LayerStats()]
                layer.packetsSent += item.packets
                layer.bytesSent += item.bytes
                layer.framesEncoded += 1
                if item.frame.isKeyframe { layer.keyFramesEncoded += 1 }
                layer.width = item.frame.width
                layer.height = item.frame.height
                control.layers[item.rid] = layer
            }
        }
    }

    func stats() -> [RTCStats] {
        control.withLock { control in
            control.layers.sorted { $0.key < $1.key }.map { rid, layer in
                var values: [String: RTCStats.Value] = [
                    "kind": .string("video"), "ssrc": .number(Double(layers[rid]?.ssrc ?? 0)),
                    "packetsSent": .number(Double(layer.packetsSent)), "bytesSent": .number(Double(layer.bytesSent)),
                    "framesEncoded": .number(Double(layer.framesEncoded)), "keyFramesEncoded": .number(Double(layer.keyFramesEncoded)),
                    "frameWidth": .number(Double(layer.width)), "frameHeight": .number(Double(layer.height)),
                    "targetBitrate": .number(Double(control.bitrate.target)), "pliCount": .number(Double(control.keyframeRequests)),
                    "nackCount": .number(Double(control.nacks)),
                    "retransmittedPacketsSent": .number(Double(control.retransmittedPackets)),
                    "retransmittedBytesSent": .number(Double(control.retransmittedBytes)),
                ]
                if !rids.isEmpty {
                    values["rid"] = .string(rid)
                    // As RTCRtpEncodingParameters.active: false while dynacast has the layer paused
                    // (never the lowest, `rids.first`).
                    let active = control.activeRids.map { $0.contains(rid) || rid == rids.first } ?? true
                    values["active"] = .string(active ? "true" : "false")
                }
                return RTCStats(id: "outbound-rtp-\(streamId)-\(rid)", type: "outbound-rtp", values: values)
            }
        }
    }
}
