import StageMedia
import StageWire

/// Receives one audio stream: Opus packets into a small jitter buffer, played out every 20 ms
/// (decoded, or concealed with in-band FEC or PLC when missing), PCM and levels to the
/// stream's `AudioDevice`. Confined to the subscribe connection's event loop.
final class AudioTrackReceiver {
    let streamId: String
    private let device: AudioDevice?
    private var jitter = AudioJitterBuffer()
    private var decoder: OpusDecoder
    private var counters = InboundRTPCounters(clockRate: 48_000)
    private var senderClock = SenderClock(clockRate: 48_000)
    /// The RTP timestamp of the slot played last (concealed slots advance it by 20 ms).
    private var playedTimestamp: UInt32?
    private(set) var samplesDecoded = 0
    private(set) var concealedSamples = 0
    /// Runs of concealed slots (W3C `concealmentEvents`: each time concealment starts after a played packet).
    private(set) var concealmentEvents = 0
    private var concealing = false

    init(streamId: String, device: AudioDevice?) throws {
        self.streamId = streamId
        self.device = device
        decoder = try OpusDecoder(channels: 2)
    }

    func receive(header: RTPHeader, packet: UnsafeRawBufferPointer, payload: Range<Int>, nowMicros: UInt64) {
        counters.record(header, packetSize: packet.count, nowMicros: nowMicros)
        _ = jitter.insert(ReceivedRTPPacket(header: header, payload: packet[payload]))
    }

    /// Every 20 ms: the next frame out of the jitter buffer, decoded or concealed.
    func playOut(nowMicros: UInt64) {
        let frame: AudioFrame?
        switch jitter.tick() {
        case .buffering:
            return
        case .packet(let payload):
            device?.deliverEncoded(payload)
            frame = try? decoder.decode(payload, captureTimeMicros: nowMicros)
            playedTimestamp = jitter.lastPlayedTimestamp
            concealing = false
        case .missing(let following):
            frame = try? decoder.decodeMissing(fecFrom: following, captureTimeMicros: nowMicros)
            concealedSamples += frame?.samplesPerChannel ?? 0
            if !concealing { concealmentEvents += 1 }
            concealing = true
            playedTimestamp = playedTimestamp.map { $0 &+ 960 }
        }
        guard var frame else { return }
        frame.senderTimeMicros = playedTimestamp.flatMap { senderClock.senderMicros(rtpTime: $0) }
        samplesDecoded += frame.samplesPerChannel
        device?.deliver(frame)
    }

    func reportBlock(nowMicros: UInt64) -> RTCPReceptionReport? { counters.reportBlock(nowMicros: nowMicros) }

    func senderReport(_ report: RTCPSenderReport, nowMicros: UInt64) {
        guard report.ssrc == counters.ssrc else { return }
        counters.senderReport(report, nowMicros: nowMicros)
        senderClock.update(report)
    }

    func stats() -> RTCStats {
        var values = counters.statsValues(kind: .audio)
        values["totalSamplesReceived"] = .number(Double(samplesDecoded))
        values["concealedSamples"] = .number(Double(concealedSamples))
        values["concealmentEvents"] = .number(Double(concealmentEvents))
        return RTCStats(id: "inbound-rtp-\(streamId)", type: "inbound-rtp", values: values)
    }
}
