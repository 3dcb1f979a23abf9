public import StageWire

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
    /// RTP clock ticks per millisecond of the 90 kHz video clock: sources switch between
    /// simulcast video layers.
    static let ticksPerMillisecond: UInt32 = 90

    public init(outgoingSSRC: UInt32, payloadType: UInt8) {
        self.outgoingSSRC = outgoingSSRC
        self.payloadType = payloadType
    }

    /// Rewrites `packet` in place (its header must be a parsed RTP header). On a switch of
    /// source, the first new timestamp lands after the last one by the wall-clock time
    /// between them (at least one tick): simulcast layers have unrelated timestamp bases.
    /// - Parameter source: the packet's own header fields, as parsed once on arrival.
    public mutating func rewrite(_ packet: UnsafeMutableRawBufferPointer, source: RTPFixedFields, now: ContinuousClock.Instant = .now) {
        let ssrc = source.ssrc, sequence = source.sequenceNumber, timestamp = source.timestamp
        if !started {
            // Start at the source's own numbering: nothing to hide yet.
            started = true
            sourceSSRC = ssrc
        } else if ssrc != sourceSSRC {
            sourceSSRC = ssrc
            let elapsed = lastForwardedAt.map { now - $0 } ?? .zero
            let milliseconds = UInt32(clamping: max(1, elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000))
            sequenceOffset = lastSequence &+ 1 &- sequence
            timestampOffset = lastTimestamp &+ milliseconds &* Self.ticksPerMillisecond &- timestamp
        }
        lastForwardedAt = now
        let outSequence = sequence &+ sequenceOffset
        let outTimestamp = timestamp &+ timestampOffset
        if Self.isNewer(outSequence, than: lastSequence) || lastSequence == 0 {
            lastSequence = outSequence
            lastTimestamp = outTimestamp
        }
        write(packet, sequence: outSequence, timestamp: outTimestamp)
    }

    /// Rewrites a cached packet of the current source being sent again (a NACK answer) with
    /// the mapping already in place; changes nothing in the munger.
    public func rewriteRetransmission(_ packet: UnsafeMutableRawBufferPointer, source: RTPFixedFields) {
        write(packet, sequence: outgoingSequence(for: source.sequenceNumber), timestamp: outgoingTimestamp(for: source.timestamp))
    }

    private func write(_ packet: UnsafeMutableRawBufferPointer, sequence: UInt16, timestamp: UInt32) {
        // The packet was parsed as RTP before it reached a consumer: the fixed header is there.
        try? RTPHeader.rewrite(sequenceNumber: sequence, timestamp: timestamp, ssrc: outgoingSSRC, in: packet)
        try? RTPHeader.setPayloadType(payloadType, in: packet)
    }

    /// A source RTP timestamp on the outgoing timeline (for translating Sender Reports).
    public func outgoingTimestamp(for sourceTimestamp: UInt32) -> UInt32 { sourceTimestamp &+ timestampOffset }

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

/// The fixed RTP header fields the forwarding path reads (RFC 3550 §5.1): taken from the
/// header parsed on arrival and handed down, so no consumer reads them again.
public struct RTPFixedFields: Sendable, Hashable {
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var ssrc: UInt32

    public init(_ header: RTPHeader) {
        sequenceNumber = header.sequenceNumber
        timestamp = header.timestamp
        ssrc = header.ssrc
    }

    /// From a packet whose header was already checked (a cached copy being resent).
    init(_ packet: UnsafeRawBufferPointer) {
        sequenceNumber = UInt16(bigEndian: packet.loadUnaligned(fromByteOffset: 2, as: UInt16.self))
        timestamp = UInt32(bigEndian: packet.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        ssrc = UInt32(bigEndian: packet.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
    }
}
