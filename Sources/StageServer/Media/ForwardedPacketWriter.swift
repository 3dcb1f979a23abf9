import NIOCore
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
///
/// A class of plain `let`s: the per-packet closure below borrows them, and retains nothing.
final class ForwardedPacketWriter {
    /// The subscriber's abs-send-time extension ID (RFC 8285 one-byte form, 1…14), if negotiated.
    let absSendTimeID: UInt8?
    /// Its transport-cc extension ID (1…14), if negotiated, and the numbering its streams share
    /// (both set, or both nil).
    let transportWideID: UInt8?
    let history: TransportSendHistory?

    init(absSendTimeID: UInt8?, transportWide: (id: UInt8, history: TransportSendHistory)?) {
        self.absSendTimeID = absSendTimeID
        transportWideID = transportWide?.id
        history = transportWide?.history
    }

    /// Bytes the replaced block can add: its 4-byte header and two words of elements.
    static let maximumGrowth = 12

    /// Copies `packet` into the peer's send buffer, lets `rewrite` change the copy's header, and
    /// protects and sends it. False when it was not sent (counted by the peer).
    func send(_ packet: UnsafeRawBufferPointer, rewrite: (UnsafeMutableRawBufferPointer) -> Void, on peer: MediaPeer) -> Bool {
        guard absSendTimeID != nil || transportWideID != nil else { return peer.sendRTP(packet, rewrite: rewrite) }
        let sentAt = NIODeadline.now().uptimeNanoseconds
        return peer.sendRTP(maximumLength: packet.count + Self.maximumGrowth) { out in
            let sequence = history?.takeSequence()
            // The copy fails only for a packet whose header lengths are wrong, which the
            // publisher's session has refused already: then it goes out as it came.
            let copied = copy(packet, sequence: sequence, sentAt: sentAt, into: out)
            let length = copied ?? {
                UnsafeMutableRawBufferPointer(rebasing: out[..<packet.count]).copyMemory(from: packet)
                return packet.count
            }()
            rewrite(UnsafeMutableRawBufferPointer(rebasing: out[..<length]))
            if copied != nil, let sequence {
                history?.sent(sequence, size: length, at: Self.microseconds(sentAt))
            }
            return length
        }
    }

    private func copy(_ packet: UnsafeRawBufferPointer, sequence: UInt16?, sentAt: UInt64,
                      into out: UnsafeMutableRawBufferPointer) -> Int? {
        switch (absSendTimeID, transportWideID, sequence) {
        case (let absID?, let wideID?, let sequence?):
            RTPHeader.copy(packet, replacingExtensionsWith: (id: absID, value: Self.absSendTime(sentAt)),
                           and: (id: wideID, value: RTPTransportSequenceNumber(value: sequence)), into: out)
        case (nil, let wideID?, let sequence?):
            RTPHeader.copy(packet, replacingExtensionsWith: wideID, value: RTPTransportSequenceNumber(value: sequence), into: out)
        case (let absID?, _, _):
            RTPHeader.copy(packet, replacingExtensionsWith: absID, value: Self.absSendTime(sentAt), into: out)
        default:
            nil
        }
    }

    /// `nanoseconds` of a monotonic clock as abs-send-time (6.18 fixed-point seconds, wrapping
    /// every 64 s). Receivers compare differences only, so any monotonic clock serves; this one
    /// (`NIODeadline`'s, CLOCK_MONOTONIC) is a plain integer, cheaper per packet than a `Duration`.
    static func absSendTime(_ nanoseconds: UInt64) -> RTPAbsSendTime {
        let (seconds, fraction) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        return RTPAbsSendTime(value: UInt32(truncatingIfNeeded: (seconds << 18) + (fraction << 18) / 1_000_000_000))
    }

    /// `nanoseconds` in microseconds: the send times `TransportSendHistory` keeps.
    static func microseconds(_ nanoseconds: UInt64) -> Int64 {
        Int64(nanoseconds / 1_000)
    }
}
