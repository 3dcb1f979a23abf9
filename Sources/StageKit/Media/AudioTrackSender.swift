import StageDevices
import StageMedia
import StageTransport
import StageWire
import Synchronization

/// Captures one local audio track in 20 ms frames, encodes Opus (in-band FEC) and sends it as
/// one RTP stream (RFC 7587). A muted track sends nothing.
final class AudioTrackSender: TrackSender, @unchecked Sendable {
    let streamId: String
    let ssrc = UInt32.random(in: 1...UInt32.max)
    private let device: AudioDevice?
    private let control: Mutex<Control>
    private var thread: CaptureThread?

    // Touched only on the capture thread once started.
    private var source: any AudioSource
    private let encoder: OpusEncoder
    private var packetizer = OpusPacketizer()
    private var writer: RTPPacketWriter
    /// The transport-wide number's placeholder every packet carries (`UplinkCongestion`).
    private let extensions = UplinkCongestion.withPlaceholder(nil)
    private var lastSenderReport: UInt64 = 0
    private var wasMuted = false
    /// The capture time and RTP time of the last frame sent: Sender Reports extrapolate from it.
    private var lastSent: (micros: UInt64, rtp: UInt32)?

    struct Control {
        var muted: Bool
        var packetsSent = 0
        var bytesSent = 0
        var framesEncoded = 0
    }

    init(track: MediaPublisher.Track) throws {
        streamId = track.streamId
        device = track.device as? AudioDevice
        source = try MediaSources.audio(track.source)
        encoder = try OpusEncoder(channels: source.channels, bitrateBps: track.configuration.audio.maxBitrate)
        writer = RTPPacketWriter(ssrc: ssrc, payloadType: ClientPeerConnection.payloadTypes[.audio] ?? 111,
                                 clockRate: RTPPacketWriter.audioClockRate)
        control = Mutex(Control(muted: track.muted))
    }

    func start(send: @escaping @Sendable ([[UInt8]]) -> Void, sendRTCP: @escaping @Sendable ([UInt8]) -> Void) {
        thread = CaptureThread(name: "capture-\(streamId)", periodMicros: 20_000 / UInt64(max(1, min(20, source.pollsPerFrame)))) { [self] now in
            captureAndSend(nowMicros: now, send: send, sendRTCP: sendRTCP)
        }
    }

    func stop() { thread?.stop() }

    func setMuted(_ muted: Bool) { control.withLock { $0.muted = muted } }

    func handle(_ feedback: PublisherFeedback, nowMicros: UInt64) {}

    private func captureAndSend(nowMicros: UInt64, send: @Sendable ([[UInt8]]) -> Void, sendRTCP: @Sendable ([UInt8]) -> Void) {
        guard let frame = try? source.nextFrame(captureTimeMicros: nowMicros) else { return }
        device?.deliver(frame)
        if nowMicros >= lastSenderReport + 1_000_000, let lastSent {
            lastSenderReport = nowMicros
            // Opus timestamps count samples, not capture ticks: extrapolate from the last packet sent.
            let report = writer.senderReport(
                ntpTime: MediaClock.ntpNow(), rtpTime: lastSent.rtp &+ UInt32(truncatingIfNeeded: (nowMicros - lastSent.micros) * 48 / 1000))
            if let compound = try? RTCPPacket.serializeCompound([.senderReport(report)]) { sendRTCP(compound) }
        }
        let muted = control.withLock { $0.muted }
        defer { wasMuted = muted }
        guard !muted else {
            packetizer.skip(samplesPerChannel: UInt32(frame.samplesPerChannel))   // time goes on while muted
            return
        }
        guard let opus = try? encoder.encode(frame) else { return }
        let payload = packetizer.packetize(opus, startOfTalkspurt: wasMuted || lastSent == nil)
        let timestamp = payload.timestamp
        let packet = writer.packet(payload: payload.payload, timestamp: timestamp, marker: payload.marker, extensions: extensions)
        lastSent = (frame.captureTimeMicros, timestamp)
        send([packet])
        control.withLock {
            $0.packetsSent += 1
            $0.bytesSent += packet.count
            $0.framesEncoded += 1
        }
    }

    func stats() -> [RTCStats] {
        control.withLock { control in
            [RTCStats(id: "outbound-rtp-\(streamId)", type: "outbound-rtp", values: [
                "kind": .string("audio"), "ssrc": .number(Double(ssrc)),
                "packetsSent": .number(Double(control.packetsSent)), "bytesSent": .number(Double(control.bytesSent)),
                "framesEncoded": .number(Double(control.framesEncoded)), "muted": .string(control.muted ? "true" : "false"),
            ])]
        }
    }
}
