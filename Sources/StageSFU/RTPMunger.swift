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
    private var lastForwardedAt: PacketTime?
    /// The latest sources and where their outgoing numbering began, newest last, so a NACK
    /// for a packet sent before a layer switch still finds its original.
    private var epochs: [Epoch] = []
    /// The next packet continues the outgoing numbering even if its source skipped some.
    private var resyncPending = false
    /// Outgoing numbers left unsent where the source had gaps (loss before the server).
    public private(set) var gaps = OutgoingGaps()
    /// The previous packet of the current source, forwarded or dropped: where a gap began.
    private var previous: (timestamp: UInt32, endsFrame: Bool, dropped: Bool)?
    /// Runs of numbering remembered for NACKs. A switch of source is rare (one a second is
    /// already more than a subscriber sees), but a consumer below the top temporal layer starts a
    /// run after every frame it skips: up to 15 a second (every other frame of 30), and a NACK
    /// may come for a packet as old as the producer's cache holds (a second).
    static let rememberedEpochs = 32
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
    /// - Parameter edges: where the packet sits in its frame, on a stream whose frames may be
    ///   dropped (`drop`); nil: every gap before it is kept.
    public mutating func rewrite(_ packet: UnsafeMutableRawBufferPointer, source: RTPFixedFields, edges: FrameEdges? = nil,
                                 now: PacketTime = .now) {
        let ssrc = source.ssrc, sequence = source.sequenceNumber, timestamp = source.timestamp
        let resynced = resyncPending && started && ssrc == sourceSSRC
        resyncPending = false
        if !started {
            // Start at the source's own numbering: nothing to hide yet.
            started = true
            sourceSSRC = ssrc
        } else if ssrc != sourceSSRC {
            sourceSSRC = ssrc
            let milliseconds = UInt32(clamping: max(1, lastForwardedAt.map { (now.nanoseconds - $0.nanoseconds) / 1_000_000 } ?? 0))
            sequenceOffset = lastSequence &+ 1 &- sequence
            timestampOffset = lastTimestamp &+ milliseconds &* Self.ticksPerMillisecond &- timestamp
        } else if resynced {
            // The same source after packets deliberately not forwarded: no gap for the
            // subscriber to ask about; the source's timestamps advanced with the time already.
            sequenceOffset = lastSequence &+ 1 &- sequence
        } else if sequence &- lastSourceSequence > 1, sequence &- lastSourceSequence < 0x8000 {
            sourceGap(count: Int(sequence &- lastSourceSequence) - 1, before: source, edges: edges, forwarded: true)
        }
        previous = (timestamp, edges?.endsFrame ?? true, false)
        if epochs.last?.source != ssrc || epochs.last?.sequenceOffset != sequenceOffset {
            if epochs.count == Self.rememberedEpochs { epochs.removeFirst() }
            epochs.append(Epoch(source: ssrc, firstOutgoing: sequence &+ sequenceOffset, sequenceOffset: sequenceOffset,
                                timestampOffset: timestampOffset))
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

    /// Packets of the current source were deliberately not forwarded (the track was muted, the
    /// consumer paused): the next one continues the outgoing sequence without a gap, so the
    /// subscriber does not ask for packets it was never meant to get.
    public mutating func resync() { resyncPending = true }

    /// One packet of the current source deliberately not forwarded (a frame above a temporal
    /// ceiling): it takes no outgoing number, as mediasoup's `SeqManager::Drop` does. Unlike
    /// `resync`, a gap the source had before it stays a gap, for the subscriber to ask for:
    /// it may be the end of a frame that was forwarded.
    public mutating func drop(_ source: RTPFixedFields, edges: FrameEdges? = nil) {
        guard started, source.ssrc == sourceSSRC else { return resync() }
        let ahead = source.sequenceNumber &- lastSourceSequence
        // A late packet of a skipped frame: its number was given up already.
        guard ahead != 0, ahead < 0x8000 else { return }
        if ahead > 1 { sourceGap(count: Int(ahead) - 1, before: source, edges: edges, forwarded: false) }
        previous = (source.timestamp, edges?.endsFrame ?? true, true)
        sequenceOffset &-= 1
        // The new offset holds from the next number on (a gap the source opens before the next
        // forwarded packet is numbered with it too): a run of drops is one epoch.
        let next = lastSequence &+ 1
        if epochs.last?.firstOutgoing == next {
            epochs[epochs.count - 1].sequenceOffset = sequenceOffset
        } else {
            if epochs.count == Self.rememberedEpochs { epochs.removeFirst() }
            epochs.append(Epoch(source: source.ssrc, firstOutgoing: next, sequenceOffset: sequenceOffset, timestampOffset: timestampOffset))
        }
    }

    /// Where a packet sits in its frame: what tells whose packets a gap before it held.
    public struct FrameEdges: Sendable, Equatable {
        /// The marker bit: it ends its frame (RFC 7741 §4.1).
        public var endsFrame: Bool
        /// S = 1 in partition 0: it begins its frame (RFC 7741 §4.2).
        public var startsFrame: Bool
        public init(endsFrame: Bool, startsFrame: Bool) {
            self.endsFrame = endsFrame
            self.startsFrame = startsFrame
        }
    }

    /// The source skipped `count` numbers before `source` (lost before the server). They stay a
    /// gap, numbered and remembered in `gaps` for the subscriber to ask for, when a frame it
    /// gets may have had packets there; they take no numbers when they can only be a dropped
    /// frame's (without `edges`, a gap is always kept).
    private mutating func sourceGap(count: Int, before source: RTPFixedFields, edges: FrameEdges?, forwarded: Bool) {
        var kept = true
        if let edges, let previous {
            if source.timestamp == previous.timestamp || previous.endsFrame {
                kept = forwarded   // the packet's own frame
            } else if edges.startsFrame {
                kept = !previous.dropped   // the end of the previous packet's frame
            } else {
                kept = forwarded || !previous.dropped   // the end of one, the start of the other
            }
        }
        if kept {
            gaps.opened(first: lastSequence &+ 1, count: count)
            lastSequence &+= UInt16(truncatingIfNeeded: count)
        } else {
            sequenceOffset &-= UInt16(truncatingIfNeeded: count)
        }
    }

    /// The newest sequence number forwarded (or dropped) from the current source: an older one
    /// is late. Every outgoing number is its source number plus the offset, gaps and drops
    /// included, so the last one says it.
    private var lastSourceSequence: UInt16 { lastSequence &- sequenceOffset }

    /// Whether `source` is older than (or the same as) the newest packet forwarded from its
    /// source: late, or resent by the publisher after a NACK. Such a packet goes through
    /// `fillGap`, not `rewrite`, which would number it as if it came after the newest.
    public func isLate(_ source: RTPFixedFields) -> Bool {
        started && source.ssrc == sourceSSRC && !Self.isNewer(source.sequenceNumber, than: lastSourceSequence)
    }

    /// Where a late packet goes: the outgoing number its run gave its source number, if that
    /// number is a gap the subscriber sees (then it is filled). Nil for a packet of a run not
    /// forwarded (a skipped frame), one sent already, or one older than what is remembered.
    /// Write it with `rewriteRetransmission`.
    public mutating func fillGap(with source: RTPFixedFields) -> (outgoing: UInt16, origin: Origin)? {
        let sequence = source.sequenceNumber
        guard let index = epochs.lastIndex(where: { epoch in
            epoch.source == source.ssrc && !Self.isNewer(epoch.firstOutgoing &- epoch.sequenceOffset, than: sequence)
        }) else { return nil }
        let epoch = epochs[index]
        let outgoing = sequence &+ epoch.sequenceOffset
        // Numbers from the next run on belong to that run.
        if epochs.indices.contains(index + 1), !Self.isNewer(epochs[index + 1].firstOutgoing, than: outgoing) { return nil }
        guard gaps.fill(outgoing) else { return nil }
        return (outgoing, Origin(source: epoch.source, sequenceNumber: sequence, timestampOffset: epoch.timestampOffset))
    }

    /// Where an outgoing packet came from: its source, its sequence number there, and the
    /// offset that puts that source's timestamps on the outgoing timeline.
    public struct Origin: Sendable, Equatable {
        public var source: UInt32
        public var sequenceNumber: UInt16
        public var timestampOffset: UInt32
    }

    /// The origin of an outgoing sequence number already sent (for answering a NACK), across
    /// the last `rememberedEpochs` source switches; nil when it is not one we sent.
    public func origin(ofOutgoing outgoing: UInt16) -> Origin? {
        guard started, outgoing == lastSequence || Self.isNewer(lastSequence, than: outgoing) else { return nil }
        // The newest epoch that began at or before it (RFC 1982 order, relative to the last sent).
        guard let epoch = epochs.last(where: { outgoing == $0.firstOutgoing || Self.isNewer(outgoing, than: $0.firstOutgoing) }) else { return nil }
        return Origin(source: epoch.source, sequenceNumber: outgoing &- epoch.sequenceOffset, timestampOffset: epoch.timestampOffset)
    }

    /// Rewrites a cached packet being sent again in its original form (a NACK answer without
    /// RTX) as the `outgoing` packet it was, on its epoch's timeline; changes nothing in the munger.
    public func rewriteRetransmission(_ packet: UnsafeMutableRawBufferPointer, source: RTPFixedFields, outgoing: UInt16, origin: Origin) {
        write(packet, sequence: outgoing, timestamp: source.timestamp &+ origin.timestampOffset)
    }

    private func write(_ packet: UnsafeMutableRawBufferPointer, sequence: UInt16, timestamp: UInt32) {
        // The packet was parsed as RTP before it reached a consumer: the fixed header is there.
        try? RTPHeader.rewrite(sequenceNumber: sequence, timestamp: timestamp, ssrc: outgoingSSRC, in: packet)
        try? RTPHeader.setPayloadType(payloadType, in: packet)
    }

    /// A source RTP timestamp on the outgoing timeline (for translating Sender Reports).
    public func outgoingTimestamp(for sourceTimestamp: UInt32) -> UInt32 { sourceTimestamp &+ timestampOffset }

    /// The newest timestamp sent (what a padding packet on the same clock carries).
    public var lastOutgoingTimestamp: UInt32 { lastTimestamp }

    /// The source SSRC currently forwarded.
    public var currentSource: UInt32? { sourceSSRC }

    /// A run of outgoing packets from one source, with the offsets it was sent with.
    private struct Epoch: Sendable {
        var source: UInt32
        var firstOutgoing: UInt16
        var sequenceOffset: UInt16
        var timestampOffset: UInt32
    }

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
