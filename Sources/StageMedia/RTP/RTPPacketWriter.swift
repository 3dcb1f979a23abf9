public import StageWire

/// Writes the RTP packets of one outgoing stream (RFC 3550 §5.1): owns the SSRC, the payload
/// type, the sequence number (random start, +1 per packet, wrapping at 2^16) and the mapping
/// from capture time to RTP timestamp (random offset + capture time × clock rate).
///
/// Header extensions are passed per packet as an `RTPExtensionBlockBuilder` (RFC 8285), so the
/// caller decides which packets carry e.g. `mid` and `rid` (RFC 8852 §3, for simulcast):
///
/// ```swift
/// var extensions = RTPExtensionBlockBuilder()
/// try extensions.set(id: midID, RTPIdentifierExtension(text: "0"))
/// try extensions.set(id: ridID, RTPIdentifierExtension(text: "h"))
/// let packets = writer.packets(payloads: vp8.packetize(frame), timestamp: writer.timestamp(captureTimeMicros: t), extensions: extensions)
/// ```
public struct RTPPacketWriter: Sendable {
    /// RTP clock of video payloads (RFC 7741 §4.1: 90 kHz for VP8).
    public static let videoClockRate: UInt32 = 90_000
    /// RTP clock of Opus (RFC 7587 §4.1).
    public static let audioClockRate: UInt32 = 48_000

    public let ssrc: UInt32
    /// PT: 7 bits, as negotiated in SDP.
    public var payloadType: UInt8
    /// Ticks per second of the RTP timestamp.
    public let clockRate: UInt32
    /// Added to every timestamp, so the first one is unpredictable (RFC 3550 §5.1).
    public let timestampOffset: UInt32
    /// The sequence number the next packet will carry.
    public private(set) var nextSequenceNumber: UInt16
    /// Packets and payload octets written, for the Sender Report (RFC 3550 §6.4.1).
    public private(set) var packetCount: UInt32 = 0
    public private(set) var octetCount: UInt32 = 0

    /// - Parameters:
    ///   - initialSequenceNumber: random by default (RFC 3550 §5.1); give one for tests.
    ///   - timestampOffset: random by default.
    public init(
        ssrc: UInt32, payloadType: UInt8, clockRate: UInt32,
        initialSequenceNumber: UInt16 = .random(in: 0...UInt16.max), timestampOffset: UInt32 = .random(in: 0...UInt32.max)
    ) {
        self.ssrc = ssrc
        self.payloadType = payloadType & 0x7F
        self.clockRate = clockRate
        self.nextSequenceNumber = initialSequenceNumber
        self.timestampOffset = timestampOffset
    }

    /// The RTP timestamp of a frame captured at `captureTimeMicros` (any monotonic clock in µs):
    /// `timestampOffset + captureTimeMicros × clockRate / 10^6`, modulo 2^32. Exact for every
    /// 64-bit input (no intermediate overflow).
    public func timestamp(captureTimeMicros: UInt64) -> UInt32 {
        timestampOffset &+ RTPClock.ticks(micros: captureTimeMicros, clockRate: clockRate)
    }

    /// Writes one packet and advances the sequence number.
    /// - Parameters:
    ///   - payload: the RTP payload (e.g. from `VP8Packetizer` or `OpusPacketizer`).
    ///   - timestamp: from `timestamp(captureTimeMicros:)` or the packetizer.
    ///   - marker: M; the last packet of a video frame, the first of an audio talkspurt.
    ///   - extensions: RFC 8285 elements for this packet; `nil` or empty for none.
    public mutating func packet(payload: [UInt8], timestamp: UInt32, marker: Bool, extensions: RTPExtensionBlockBuilder? = nil) -> [UInt8] {
        packet(payload: payload, timestamp: timestamp, marker: marker, extensions: SerializedExtensions(extensions))
    }

    /// An extension block serialized once, for all the packets that carry it.
    private struct SerializedExtensions {
        /// `nil` for no extension (X = 0): no builder, or an empty one.
        let profile: UInt16?
        let body: [UInt8]

        init(_ builder: RTPExtensionBlockBuilder?) {
            if let builder, !builder.isEmpty {
                profile = builder.form.profile
                body = builder.body()
            } else {
                profile = nil
                body = []
            }
        }
    }

    private mutating func packet(payload: [UInt8], timestamp: UInt32, marker: Bool, extensions: SerializedExtensions) -> [UInt8] {
        let header = RTPHeader(
            marker: marker, payloadType: payloadType, sequenceNumber: nextSequenceNumber, timestamp: timestamp, ssrc: ssrc,
            extensionProfile: extensions.profile, extensionLength: extensions.body.count)
        var out: [UInt8] = []
        out.reserveCapacity(header.marshalSize + payload.count)
        header.serialize(into: &out, extensionBody: extensions.body)
        out.append(contentsOf: payload)
        nextSequenceNumber &+= 1
        packetCount &+= 1
        octetCount &+= UInt32(truncatingIfNeeded: payload.count)
        return out
    }

    /// A Sender Report for this stream (RFC 3550 §6.4.1): wallclock and RTP time of one instant,
    /// and the packet and octet counts so far.
    /// - Parameters:
    ///   - ntpTime: now as 64-bit NTP (`RTCPTiming.ntpTime(unixMicros:)`); receivers echo its
    ///     middle 32 bits as LSR, so use the same clock for `RTCPTiming.roundTripTime`.
    ///   - nowMicros: now on the capture clock passed to `timestamp(captureTimeMicros:)`.
    ///   - reports: reception report blocks to carry, if this endpoint also receives.
    public func senderReport(ntpTime: UInt64, nowMicros: UInt64, reports: [RTCPReceptionReport] = []) -> RTCPSenderReport {
        senderReport(ntpTime: ntpTime, rtpTime: timestamp(captureTimeMicros: nowMicros), reports: reports)
    }

    /// A Sender Report whose RTP time the caller computed: for streams whose timestamps do not
    /// come from `timestamp(captureTimeMicros:)`, such as Opus packets stamped by `OpusPacketizer`.
    /// - Parameters:
    ///   - ntpTime: now as 64-bit NTP, as in `senderReport(ntpTime:nowMicros:reports:)`.
    ///   - rtpTime: the RTP timestamp corresponding to `ntpTime` (RFC 3550 §6.4.1).
    ///   - reports: reception report blocks to carry, if this endpoint also receives.
    public func senderReport(ntpTime: UInt64, rtpTime: UInt32, reports: [RTCPReceptionReport] = []) -> RTCPSenderReport {
        RTCPSenderReport(
            ssrc: ssrc, ntpTime: ntpTime, rtpTime: rtpTime, packetCount: packetCount, octetCount: octetCount, reports: reports)
    }

    /// Writes the packets of one video frame: the same timestamp on all, the marker on the last
    /// (RFC 7741 §4.1), `extensions` on each.
    public mutating func packets(payloads: [[UInt8]], timestamp: UInt32, extensions: RTPExtensionBlockBuilder? = nil) -> [[UInt8]] {
        let extensions = SerializedExtensions(extensions)
        return payloads.indices.map { index in
            packet(payload: payloads[index], timestamp: timestamp, marker: index == payloads.count - 1, extensions: extensions)
        }
    }
}
