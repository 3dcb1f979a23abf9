import StageMedia
import StageWire

/// Receives one video stream: RTP into the jitter buffer (reorder, NACK, keyframe requests),
/// complete frames into the VP8 decoder, pictures to the stream's `ImageDevice`.
/// Confined to the subscribe connection's event loop.
final class VideoTrackReceiver {
    let streamId: String
    private let device: ImageDevice?
    private var jitter = VideoJitterBuffer()
    private let decoder: VP8Decoder
    private var statistics: ReceiverStatistics?
    private(set) var framesDecoded = 0
    private(set) var keyFramesDecoded = 0
    private(set) var framesDropped = 0
    private(set) var bytesReceived = 0
    private(set) var frameWidth = 0
    private(set) var frameHeight = 0
    private(set) var pliSent = 0
    private(set) var nacksSent = 0
    /// A frame failed to decode: nothing but a keyframe can follow.
    private var needsKeyframeAfterError = false
    private var lastErrorPLI: UInt64 = 0

    init(streamId: String, device: ImageDevice?) throws {
        self.streamId = streamId
        self.device = device
        decoder = try VP8Decoder()
    }

    var ssrc: UInt32? { statistics?.ssrc }

    func receive(header: RTPHeader, packet: UnsafeRawBufferPointer, payload: Range<Int>, nowMicros: UInt64, rttMicros: UInt64) {
        if statistics?.ssrc != header.ssrc { statistics = ReceiverStatistics(ssrc: header.ssrc, clockRate: 90_000) }
        _ = statistics?.record(sequenceNumber: header.sequenceNumber, rtpTimestamp: header.timestamp, arrivalMicros: nowMicros)
        bytesReceived += packet.count
        _ = jitter.insert(ReceivedRTPPacket(header: header, payload: packet[payload]), now: nowMicros)
        for frame in jitter.popCompleteFrames(now: nowMicros, rtt: rttMicros) { decode(frame, nowMicros: nowMicros) }
    }

    private func decode(_ frame: ReceivedVP8Frame, nowMicros: UInt64) {
        if needsKeyframeAfterError && !frame.isKeyframe { return }
        device?.deliverEncoded(EncodedVideoFrameData(data: frame.data, isKeyframe: frame.isKeyframe, timestamp: frame.timestamp,
                                                     width: frame.width, height: frame.height))
        do {
            guard let picture = try decoder.decode(frame.data, captureTimeMicros: nowMicros) else { return }
            needsKeyframeAfterError = false
            framesDecoded += 1
            if frame.isKeyframe { keyFramesDecoded += 1 }
            frameWidth = picture.width
            frameHeight = picture.height
            device?.deliver(picture)
        } catch {
            framesDropped += 1
            needsKeyframeAfterError = true
        }
    }

    /// Feedback due now: NACKs for missing packets, a PLI when a gap cannot be repaired or the
    /// decoder failed (RFC 4585 §6.2.1, §6.3.1).
    func feedback(senderSSRC: UInt32, nowMicros: UInt64, rttMicros: UInt64) -> [RTCPPacket] {
        guard let ssrc else { return [] }
        var packets: [RTCPPacket] = []
        if let nack = jitter.genericNACK(now: nowMicros, rtt: rttMicros, senderSSRC: senderSSRC, mediaSSRC: ssrc) {
            nacksSent += 1
            packets.append(.genericNACK(nack))
        }
        if let pli = jitter.pictureLossIndication(now: nowMicros, senderSSRC: senderSSRC, mediaSSRC: ssrc) {
            pliSent += 1
            lastErrorPLI = nowMicros
            packets.append(.pictureLossIndication(pli))
        } else if needsKeyframeAfterError, nowMicros >= lastErrorPLI + 300_000 {
            pliSent += 1
            lastErrorPLI = nowMicros
            packets.append(.pictureLossIndication(RTCPPictureLossIndication(senderSSRC: senderSSRC, mediaSSRC: ssrc)))
        }
        return packets
    }

    func reportBlock(nowMicros: UInt64) -> RTCPReceptionReport? { statistics?.makeReportBlock(nowMicros: nowMicros) }

    func senderReport(_ report: RTCPSenderReport, nowMicros: UInt64) {
        guard report.ssrc == statistics?.ssrc else { return }
        statistics?.recordSenderReport(report, arrivalMicros: nowMicros)
    }

    func stats() -> RTCStats {
        RTCStats(id: "inbound-rtp-\(streamId)", type: "inbound-rtp", values: [
            "kind": .string("video"), "ssrc": .number(Double(ssrc ?? 0)),
            "packetsReceived": .number(Double(statistics?.packetsReceived ?? 0)),
            "packetsLost": .number(Double(statistics?.cumulativeLost ?? 0)),
            "jitter": .number(Double(statistics?.jitterEstimate ?? 0) / 90_000),
            "bytesReceived": .number(Double(bytesReceived)),
            "framesDecoded": .number(Double(framesDecoded)), "keyFramesDecoded": .number(Double(keyFramesDecoded)),
            "framesDropped": .number(Double(framesDropped + jitter.statistics.framesDropped)),
            "frameWidth": .number(Double(frameWidth)), "frameHeight": .number(Double(frameHeight)),
            "nackCount": .number(Double(jitter.statistics.nacksSent)), "pliCount": .number(Double(pliSent)),
        ])
    }
}
