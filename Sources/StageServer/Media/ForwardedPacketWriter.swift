import StageTransport
import StageWire

/// How one consumer's packets reach its subscriber: as the publisher sent them, or — when the
/// subscriber negotiated abs-send-time — with the publisher's header extensions replaced by
/// abs-send-time under the subscriber's ID, stamped as the packet leaves. A receiver without
/// transport-cc (aiortc) needs it for its delay-based estimate, which it reports as REMB
/// (draft-alvestrand-rmcat-remb-03; webrtc.org abs-send-time).
struct ForwardedPacketWriter {
    /// The subscriber's abs-send-time extension ID (RFC 8285 one-byte form, 1…14), if negotiated.
    let absSendTimeID: UInt8?

    /// Bytes the replaced block can add: its 4-byte header and one 4-byte word.
    static let maximumGrowth = 8

    /// Copies `packet` into the peer's send buffer, lets `rewrite` change the copy's header, and
    /// protects and sends it. False when it was not sent (counted by the peer).
    func send(_ packet: UnsafeRawBufferPointer, rewrite: (UnsafeMutableRawBufferPointer) -> Void, on peer: MediaPeer) -> Bool {
        guard let absSendTimeID else { return peer.sendRTP(packet, rewrite: rewrite) }
        let stamp = Self.absSendTime()
        return peer.sendRTP(maximumLength: packet.count + Self.maximumGrowth) { out in
            // The copy fails only for a packet whose header lengths are wrong, which the
            // publisher's session has refused already: then it goes out as it came.
            let length = RTPHeader.copy(packet, replacingExtensionsWith: absSendTimeID, value: stamp, into: out) ?? {
                UnsafeMutableRawBufferPointer(rebasing: out[..<packet.count]).copyMemory(from: packet)
                return packet.count
            }()
            rewrite(UnsafeMutableRawBufferPointer(rebasing: out[..<length]))
            return length
        }
    }

    private static let origin = ContinuousClock.now
    /// 2⁻¹⁸ s in attoseconds: abs-send-time's unit.
    private static let attosecondsPerTick: Int64 = 3_814_697_265_625

    /// The time now as abs-send-time (6.18 fixed-point seconds, wrapping every 64 s). Receivers
    /// compare differences only, so a monotonic clock serves.
    static func absSendTime(at now: ContinuousClock.Instant = .now) -> RTPAbsSendTime {
        let (seconds, attoseconds) = origin.duration(to: now).components
        return RTPAbsSendTime(value: UInt32(truncatingIfNeeded: (seconds << 18) + attoseconds / attosecondsPerTick))
    }
}
