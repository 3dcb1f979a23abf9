import StageWire

extension VideoJitterBuffer {
    /// Limits and timings; the defaults follow libwebrtc's orders of magnitude.
    public struct Configuration: Hashable, Sendable {
        /// Most sequence numbers spanned at once (held packets and gaps). A packet that would
        /// exceed it flushes the buffer: memory stays bounded whatever arrives.
        public var maxPackets: Int
        /// Times one missing sequence number is NACKed at most.
        public var maxNacksPerPacket: Int
        /// A missing packet is no longer NACKed this long after it was found missing.
        public var maxNackAgeMicros: UInt64
        /// Shortest interval between two NACKs of one packet, whatever the RTT.
        public var minRetransmitIntervalMicros: UInt64
        /// A gap is given up (and a keyframe requested) after max(this, 2 × RTT).
        public var minWaitMicros: UInt64
        /// Shortest interval between two keyframe requests.
        public var keyframeRequestIntervalMicros: UInt64
        /// At start, a packet up to this many before the first one received is still taken.
        public var startReorderWindow: Int

        public init(
            maxPackets: Int = 1000, maxNacksPerPacket: Int = 10, maxNackAgeMicros: UInt64 = 1_000_000,
            minRetransmitIntervalMicros: UInt64 = 5_000, minWaitMicros: UInt64 = 200_000,
            keyframeRequestIntervalMicros: UInt64 = 300_000, startReorderWindow: Int = 64
        ) {
            self.maxPackets = max(maxPackets, 2)
            self.maxNacksPerPacket = maxNacksPerPacket
            self.maxNackAgeMicros = maxNackAgeMicros
            self.minRetransmitIntervalMicros = minRetransmitIntervalMicros
            self.minWaitMicros = minWaitMicros
            self.keyframeRequestIntervalMicros = keyframeRequestIntervalMicros
            self.startReorderWindow = max(startReorderWindow, 0)
        }
    }

    /// Counters since creation; every packet not turned into a frame is counted by reason.
    public struct Statistics: Hashable, Sendable {
        /// Every `insert` call.
        public var packetsReceived = 0
        /// A packet already held or already turned into a frame.
        public var duplicatePackets = 0
        /// A packet for a frame already emitted or skipped: dropped.
        public var latePackets = 0
        /// A packet whose VP8 payload descriptor does not parse (held; its frame is dropped).
        public var malformedPackets = 0
        /// Sequence numbers given up on without ever arriving.
        public var packetsLost = 0
        /// Sequence numbers that were missing and then arrived (NACK repairs, reordering).
        public var packetsRecovered = 0
        /// Sequence numbers returned by `nacksDue` (one per NACK of one packet).
        public var nacksSent = 0
        public var framesEmitted = 0
        /// Frames discarded: broken on assembly, skipped while waiting for a keyframe (counted by
        /// distinct timestamps among the packets discarded), or predicting from a frame lost on
        /// a temporal layer above the base.
        public var framesDropped = 0
        /// Gaps given up without waiting for a keyframe: every frame lost there was above the
        /// temporal base layer, so decoding went on at the next frame (RFC 7741 §4.2).
        public var lossesSkipped = 0
        /// Times `keyframeRequestDue` said to send a PLI.
        public var keyframeRequests = 0
        /// Times the buffer was cleared because a packet lay beyond `maxPackets`.
        public var flushes = 0
        /// Times the sender's sequence numbers restarted far behind and the buffer started over.
        public var restarts = 0

        public init() {}
    }

    /// What `insert` did with a packet.
    public enum InsertResult: Hashable, Sendable {
        /// Held until its frame is complete.
        case inserted
        /// Held, and it filled a gap (a retransmission or a reordered packet).
        case recovered
        /// Dropped: already held or already emitted.
        case duplicate
        /// Dropped: its frame was already emitted or skipped.
        case late
        /// The buffer was cleared (`maxPackets` exceeded or the sender restarted) and the packet
        /// starts afresh; a keyframe is needed.
        case flushed
    }

    /// Whether frames are being emitted in order, or the buffer is skipping to a keyframe.
    enum Mode: Hashable, Sendable {
        /// Emitting: `floor` is the first packet of the next frame.
        case decoding
        /// At start and after a loss: only a complete keyframe is emitted next.
        case awaitingKeyframe
    }

    /// One packet held, with its arrival time and what its payload descriptor says.
    struct HeldPacket: Sendable {
        var packet: ReceivedRTPPacket
        var arrivalMicros: UInt64
        /// Its payload descriptor (RFC 7741 §4.2), `nil` when it does not parse.
        var descriptor: VP8PayloadDescriptor?
        /// The first packet of a keyframe (P = 0, RFC 7741 §4.3).
        var startsKeyframe: Bool
    }

    /// A sequence number found missing (a later one arrived).
    struct MissingPacket: Sendable {
        var detectedMicros: UInt64
        var nackCount = 0
        var lastNackMicros: UInt64?
    }

    /// Where the frame starting at a sequence number stands.
    enum Scan {
        /// Contiguous packets of one timestamp up to a marker bit — or up to a timestamp change,
        /// which the depacketizer then rejects.
        case complete(Range<Int64>)
        /// This sequence number has not arrived yet.
        case waiting(Int64)
    }
}
