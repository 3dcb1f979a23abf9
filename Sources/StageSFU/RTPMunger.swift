/// Rewrites the RTP header fields of forwarded packets so a subscriber sees one continuous
/// stream (RFC 3550 §5.1, §8.2): its own SSRC and payload type, sequence numbers without gaps
/// or jumps across source switches, and timestamps that keep advancing.
///
/// Mechanism only: *which* packets to forward is the layer selector's decision.
public struct RTPMunger: Sendable {
    public let outgoingSSRC: UInt32
    public var payloadType: UInt8
    private var sequenceOffset: UInt16 = 0
    private var timestampOffset: UInt32 = 0
    private var lastSequence: UInt16 = 0
    private var lastTimestamp: UInt32 = 0
    private var started = false
    /// The source whose numbering the offsets are for.
    private var sourceSSRC: UInt32?
    private var lastForwardedAt: ContinuousClock.Instant?
    /// RTP clock ticks per millisecond (90 for video, 48 for Opus).
    public let ticksPerMillisecond: UInt32

    public init(outgoingSSRC: UInt32, payloadType: UInt8, clockRate: UInt32 = 90_000) {
        self.outgoingSSRC = outgoingSSRC
        self.payloadType = payloadType
        ticksPerMillisecond = max(1, clockRate / 1000)
    }

    /// Rewrites `packet` in place (its header must be a parsed RTP header). On a switch of
    /// source, the first new timestamp lands after the last one by the wall-clock time
    /// between them (at least one tick): simulcast layers have unrelated timestamp bases.
    public mutating func rewrite(_ packet: UnsafeMutableRawBufferPointer, now: ContinuousClock.Instant = .now) {
        let ssrc = RTPBytes.ssrc(packet)
        let sequence = RTPBytes.sequenceNumber(packet)
        let timestamp = RTPBytes.timestamp(packet)
        if !started {
            // Start at the source's own numbering: nothing to hide yet.
            started = true
            sourceSSRC = ssrc
        } else if ssrc != sourceSSRC {
            sourceSSRC = ssrc
            let elapsed = lastForwardedAt.map { now - $0 } ?? .zero
            let milliseconds = UInt32(clamping: max(1, elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000))
            sequenceOffset = lastSequence &+ 1 &- sequence
            timestampOffset = lastTimestamp &+ milliseconds &* ticksPerMillisecond &- timestamp
        }
        lastForwardedAt = now
        let outSequence = sequence &+ sequenceOffset
        let outTimestamp = timestamp &+ timestampOffset
        if Self.isNewer(outSequence, than: lastSequence) || lastSequence == 0 {
            lastSequence = outSequence
            lastTimestamp = outTimestamp
        }
        RTPBytes.setSequenceNumber(packet, outSequence)
        RTPBytes.setTimestamp(packet, outTimestamp)
        RTPBytes.setSSRC(packet, outgoingSSRC)
        RTPBytes.setPayloadType(packet, payloadType)
    }

    /// The source SSRC currently forwarded.
    public var currentSource: UInt32? { sourceSSRC }

    /// The outgoing sequence number a source sequence number maps to (for translating NACKs).
    public func outgoingSequence(for sourceSequence: UInt16) -> UInt16 { sourceSequence &+ sequenceOffset }
    /// The source sequence number an outgoing one came from.
    public func sourceSequence(for outgoing: UInt16) -> UInt16 { outgoing &- sequenceOffset }

    /// RFC 1982 serial-number comparison for 16-bit sequence numbers.
    static func isNewer(_ a: UInt16, than b: UInt16) -> Bool {
        a != b && (a &- b) < 0x8000
    }
}

/// The few fixed RTP header fields the forwarding path reads and writes (RFC 3550 §5.1), by offset.
enum RTPBytes {
    static func sequenceNumber(_ p: UnsafeMutableRawBufferPointer) -> UInt16 { UInt16(p[2]) << 8 | UInt16(p[3]) }
    static func timestamp(_ p: UnsafeMutableRawBufferPointer) -> UInt32 {
        UInt32(p[4]) << 24 | UInt32(p[5]) << 16 | UInt32(p[6]) << 8 | UInt32(p[7])
    }
    static func ssrc(_ p: UnsafeMutableRawBufferPointer) -> UInt32 {
        UInt32(p[8]) << 24 | UInt32(p[9]) << 16 | UInt32(p[10]) << 8 | UInt32(p[11])
    }
    static func payloadType(_ p: UnsafeMutableRawBufferPointer) -> UInt8 { p[1] & 0x7F }

    static func setSequenceNumber(_ p: UnsafeMutableRawBufferPointer, _ v: UInt16) {
        p[2] = UInt8(v >> 8); p[3] = UInt8(v & 0xFF)
    }
    static func setTimestamp(_ p: UnsafeMutableRawBufferPointer, _ v: UInt32) {
        p[4] = UInt8(v >> 24); p[5] = UInt8(v >> 16 & 0xFF); p[6] = UInt8(v >> 8 & 0xFF); p[7] = UInt8(v & 0xFF)
    }
    static func setSSRC(_ p: UnsafeMutableRawBufferPointer, _ v: UInt32) {
        p[8] = UInt8(v >> 24); p[9] = UInt8(v >> 16 & 0xFF); p[10] = UInt8(v >> 8 & 0xFF); p[11] = UInt8(v & 0xFF)
    }
    static func setPayloadType(_ p: UnsafeMutableRawBufferPointer, _ v: UInt8) { p[1] = p[1] & 0x80 | v & 0x7F }
}
