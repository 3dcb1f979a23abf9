import StageCongestion
import StageSFU
import StageTransport
import StageWire

/// How one consumer's packets reach its subscriber: as the publisher sent them, or — when the
/// subscriber negotiated abs-send-time or transport-cc — with the publisher's header extensions
/// replaced by ours under the subscriber's IDs, stamped as the packet leaves:
/// - abs-send-time, for a receiver that estimates its downlink itself and reports it as REMB
///   (aiortc; draft-alvestrand-rmcat-remb-03, webrtc.org abs-send-time);
/// - a transport-wide sequence number from the subscriber's one counter, remembered with the
///   time it left and its size, for our own estimate of its downlink from its transport-cc
///   feedback (Chromium, the SDK; draft-holmer-rmcat-transport-wide-cc-extensions-01).
struct ForwardedPacketWriter {
    /// The subscriber's abs-send-time extension ID (RFC 8285 one-byte form, 1…14), if negotiated.
    let absSendTimeID: UInt8?
    /// Its transport-cc extension ID (1…14) and the numbering its streams share, if negotiated.
    let transportWide: (id: UInt8, history: TransportSendHistory)?

    /// Bytes the replaced block can add: its 4-byte header and two words of elements.
    static let maximumGrowth = 12

    /// Copies `packet` into the peer's send buffer, lets `rewrite` change the copy's header, and
    /// protects and sends it. False when it was not sent (counted by the peer).
    func send(_ packet: UnsafeRawBufferPointer, rewrite: (UnsafeMutableRawBufferPointer) -> Void, on peer: MediaPeer) -> Bool {
        guard absSendTimeID != nil || transportWide != nil else { return peer.sendRTP(packet, rewrite: rewrite) }
        let elapsed = Self.origin.duration(to: .now)
        return peer.sendRTP(maximumLength: packet.count + Self.maximumGrowth) { out in
            let sequence = transportWide?.history.takeSequence()
            // The copy fails only for a packet whose header lengths are wrong, which the
            // publisher's session has refused already: then it goes out as it came.
            let copied = copy(packet, sequence: sequence, elapsed: elapsed, into: out)
            let length = copied ?? {
                UnsafeMutableRawBufferPointer(rebasing: out[..<packet.count]).copyMemory(from: packet)
                return packet.count
            }()
            rewrite(UnsafeMutableRawBufferPointer(rebasing: out[..<length]))
            if copied != nil, let sequence, let transportWide {
                transportWide.history.sent(sequence, size: length, at: Self.microseconds(elapsed))
            }
            return length
        }
    }

    private func copy(_ packet: UnsafeRawBufferPointer, sequence: UInt16?, elapsed: Duration,
                      into out: UnsafeMutableRawBufferPointer) -> Int? {
        switch (absSendTimeID, transportWide, sequence) {
        case (let absID?, let wide?, let sequence?):
            RTPHeader.copy(packet, replacingExtensionsWith: (id: absID, value: Self.absSendTime(elapsed)),
                           and: (id: wide.id, value: RTPTransportSequenceNumber(value: sequence)), into: out)
        case (nil, let wide?, let sequence?):
            RTPHeader.copy(packet, replacingExtensionsWith: wide.id, value: RTPTransportSequenceNumber(value: sequence), into: out)
        case (let absID?, _, _):
            RTPHeader.copy(packet, replacingExtensionsWith: absID, value: Self.absSendTime(elapsed), into: out)
        default:
            nil
        }
    }

    private static let origin = ContinuousClock.now
    /// 2⁻¹⁸ s in attoseconds: abs-send-time's unit.
    private static let attosecondsPerTick: Int64 = 3_814_697_265_625

    /// `elapsed` since the writers' origin as abs-send-time (6.18 fixed-point seconds, wrapping
    /// every 64 s). Receivers compare differences only, so a monotonic clock serves.
    static func absSendTime(_ elapsed: Duration) -> RTPAbsSendTime {
        let (seconds, attoseconds) = elapsed.components
        return RTPAbsSendTime(value: UInt32(truncatingIfNeeded: (seconds << 18) + attoseconds / attosecondsPerTick))
    }

    /// `elapsed` in microseconds: the send times `TransportSendHistory` keeps.
    static func microseconds(_ elapsed: Duration) -> Int64 {
        let (seconds, attoseconds) = elapsed.components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}
