import StageMedia
import StageWire

/// Receives one video stream: RTP into the jitter buffer (reorder, NACK, keyframe requests),
/// complete frames into the VP8 decoder, pictures to the stream's `ImageDevice`.
/// Confined to the subscribe connection's event loop.
final class VideoTrackReceiver {
    let streamId: String
    private let device: ImageDevice?
    private var jitter = VideoJitterBuffer(configuration: .init(minWaitMicros: VideoTrackReceiver.minimumWaitMicros))
    /// How long a gap may stay open before the frame is given up for a keyframe, at least.
    /// Behind an SFU a packet lost on the publisher's leg comes back a publisher round trip
    /// after the gap shows here (the SFU asks the publisher again, then forwards the repair),
    /// whatever this leg's round trip: 200 ms gave up on repairs of a 200 ms publisher leg.
    static let minimumWaitMicros: UInt64 = 600_000
    private let decoder: VP8Decoder
    private var counters = InboundRTPCounters(clockRate: 90_000)
    private var senderClock = SenderClock(clockRate: 90_000)
    private(set) var framesDecoded = 0
    private(set) var keyFramesDecoded = 0
    private(set) var framesDropped = 0
    /// Frames libvpx refused or flagged corrupt (a lost reference, damaged data); each is also dropped.
    private(set) var decodeErrors = 0
    private(set) var frameWidth = 0
    private(set) var frameHeight = 0
    private(set) var pliSent = 0
    /// RTX packets (RFC 4588) that brought back a packet, and their payload bytes.
    private(set) var retransmittedPacketsReceived = 0
    private(set) var retransmittedBytesReceived = 0
    /// Freezes as WebRTC statistics count them, timed at decoding (frames are shown as decoded).
    private var freezes = FreezeDetector()

    init(streamId: String, device: ImageDevice?) throws {
        self.streamId = streamId
        self.device = device
        decoder = try VP8Decoder()
    }

    func receive(header: RTPHeader, packet: UnsafeRawBufferPointer, payload: Range<Int>, nowMicros: UInt64, rttMicros: UInt64) {
        counters.record(header, packetSize: packet.count, nowMicros: nowMicros)
        _ = jitter.insert(ReceivedRTPPacket(header: header, payload: packet[payload]), now: nowMicros)
        for frame in jitter.popCompleteFrames(now: nowMicros, rtt: rttMicros) { decode(frame, nowMicros: nowMicros) }
    }

    /// An RTX packet of this stream (RFC 4588 §4): the original, known by the OSN its payload
    /// starts with, goes into the jitter buffer; it is not counted as a packet of the stream.
    /// One without an OSN (a padding-only probe) brings nothing back.
    func receiveRetransmission(header: RTPHeader, packet: UnsafeRawBufferPointer, payload: Range<Int>, nowMicros: UInt64, rttMicros: UInt64) {
        guard payload.count >= RTPRetransmission.originalSequenceSize else { return }
        let originalSequence = UInt16(packet[payload.lowerBound]) << 8 | UInt16(packet[payload.lowerBound + 1])
        let original = payload.dropFirst(RTPRetransmission.originalSequenceSize)
        retransmittedPacketsReceived += 1
        retransmittedBytesReceived += original.count
        _ = jitter.insert(ReceivedRTPPacket(sequenceNumber: originalSequence, timestamp: header.timestamp, marker: header.marker,
                                            payload: Array(packet[original])), now: nowMicros)
        for frame in jitter.popCompleteFrames(now: nowMicros, rtt: rttMicros) { decode(frame, nowMicros: nowMicros) }
    }

    private func decode(_ frame: ReceivedVP8Frame, nowMicros: UInt64) {
        device?.deliverEncoded(EncodedVideoFrameData(data: frame.data, isKeyframe: frame.isKeyframe, timestamp: frame.timestamp,
                                                     width: frame.width, height: frame.height))
        do {
            guard var picture = try decoder.decode(frame.data, captureTimeMicros: nowMicros) else { return }
            picture.senderTimeMicros = senderClock.senderMicros(rtpTime: frame.timestamp)
            framesDecoded += 1
            freezes.frameShown(atMicros: nowMicros)
            if frame.isKeyframe { keyFramesDecoded += 1 }
            frameWidth = picture.width
            frameHeight = picture.height
            device?.deliver(picture)
        } catch {
            framesDropped += 1
            decodeErrors += 1
            jitter.decoderNeedsKeyframe()
        }
    }

    /// Feedback due now: NACKs for missing packets, a PLI when a gap cannot be repaired or the
    /// decoder failed (RFC 4585 §6.2.1, §6.3.1).
    func feedback(senderSSRC: UInt32, nowMicros: UInt64, rttMicros: UInt64) -> [RTCPPacket] {
        guard let ssrc = counters.ssrc else { return [] }
        var packets: [RTCPPacket] = []
        if let nack = jitter.genericNACK(now: nowMicros, rtt: rttMicros, senderSSRC: senderSSRC, mediaSSRC: ssrc) {
            packets.append(.genericNACK(nack))
        }
        if let pli = jitter.pictureLossIndication(now: nowMicros, senderSSRC: senderSSRC, mediaSSRC: ssrc) {
            pliSent += 1
            packets.append(.pictureLossIndication(pli))
        }
        return packets
    }

    func reportBlock(nowMicros: UInt64) -> RTCPReceptionReport? { counters.reportBlock(nowMicros: nowMicros) }

    func senderReport(_ report: RTCPSenderReport, nowMicros: UInt64) {
        guard report.ssrc == counters.ssrc else { return }
        counters.senderReport(report, nowMicros: nowMicros)
        senderClock.update(report)
    }

    func stats() -> RTCStats {
        var values = counters.statsValues(kind: .video)
        values["framesDecoded"] = .number(Double(framesDecoded))
        values["keyFramesDecoded"] = .number(Double(keyFramesDecoded))
        values["framesDropped"] = .number(Double(framesDropped + jitter.statistics.framesDropped))
        values["decodeErrors"] = .number(Double(decodeErrors))
        values["frameWidth"] = .number(Double(frameWidth))
        values["frameHeight"] = .number(Double(frameHeight))
        values["nackCount"] = .number(Double(jitter.statistics.nacksSent))
        values["pliCount"] = .number(Double(pliSent))
        values["retransmittedPacketsReceived"] = .number(Double(retransmittedPacketsReceived))
        values["retransmittedBytesReceived"] = .number(Double(retransmittedBytesReceived))
        values["freezeCount"] = .number(Double(freezes.freezeCount))
        values["totalFreezesDuration"] = .number(freezes.totalFreezesDuration)
        // Not W3C members: the freezes a viewer sees as stalls (≥ 500 ms) and the worst one, in seconds.
        values["longFreezeCount"] = .number(Double(freezes.longFreezeCount))
        values["longestFreezeDuration"] = .number(Double(freezes.longestFreezeMicros) / 1_000_000)
        return RTCStats(id: "inbound-rtp-\(streamId)", type: "inbound-rtp", values: values)
    }
}
