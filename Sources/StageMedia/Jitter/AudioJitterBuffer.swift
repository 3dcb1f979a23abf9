/// The receiver's Opus jitter buffer: orders packets by sequence number and plays one per
/// 20 ms tick after a small target delay (RFC 7587: one Opus frame per RTP packet, §4.2).
///
/// Each `tick()` is one 20 ms slot of the playout clock and yields what to decode:
/// `.packet` — the next packet; `.missing(next:)` — conceal this slot, with the following
/// packet if held, so the decoder can recover the lost frame from its in-band FEC (LBRR) or
/// fall back to PLC; `.buffering` — nothing started yet, play silence.
///
/// - Start and underrun: playing starts once `targetDelayPackets` are held (or the oldest has
///   waited that many ticks). When the buffer runs dry (loss, or a sender in DTX silence) each
///   tick conceals without advancing, and playing resumes after the same priming — so the
///   cushion is rebuilt rather than running on empty.
/// - Latency: when more than `maxDelayPackets` are queued, the oldest are dropped.
/// - Order: extended sequence numbers survive 16-bit wraparound; a packet already played or
///   skipped is late. A jump of more than `maxJump` either way is a sender restart once the
///   next packet follows it (RFC 3550 A.1's rule): the buffer starts over.
///
/// A plain value: no clock is read; the caller's playout clock drives `tick()`.
public struct AudioJitterBuffer: Sendable {
    public struct Configuration: Hashable, Sendable {
        /// Packets (of 20 ms) held before playing starts: 3 → 60 ms.
        public var targetDelayPackets: Int
        /// Most packets queued before the oldest are dropped to cut latency: 10 → 200 ms.
        public var maxDelayPackets: Int
        /// A sequence jump beyond this (either way) is a restart, not loss or reordering.
        public var maxJump: Int

        public init(targetDelayPackets: Int = 3, maxDelayPackets: Int = 10, maxJump: Int = 100) {
            self.targetDelayPackets = max(targetDelayPackets, 1)
            self.maxDelayPackets = max(maxDelayPackets, self.targetDelayPackets)
            self.maxJump = max(maxJump, self.maxDelayPackets)
        }
    }

    /// What to decode for one 20 ms slot.
    public enum Output: Hashable, Sendable {
        /// Decode this Opus packet.
        case packet([UInt8])
        /// Conceal this slot: decode `next` with FEC when present, else run PLC.
        case missing(next: [UInt8]?)
        /// Not started: play silence.
        case buffering
    }

    /// What `insert` did with a packet.
    public enum InsertResult: Hashable, Sendable {
        case inserted
        /// Dropped: already held.
        case duplicate
        /// Dropped: its slot was already played or concealed.
        case late
        /// Dropped: too far from the stream; kept in mind as a possible restart.
        case outOfRange
        /// The sender restarted: the buffer started over with this packet.
        case restarted
    }

    public struct Statistics: Hashable, Sendable {
        public var packetsReceived = 0
        public var duplicatePackets = 0
        public var latePackets = 0
        public var outOfRangePackets = 0
        /// Packets played.
        public var packetsPlayed = 0
        /// Slots concealed because their packet was missing while later ones were held.
        public var packetsLost = 0
        /// Slots concealed because the buffer was empty (loss at the tail, or DTX).
        public var underruns = 0
        /// Packets dropped unplayed to keep the delay under `maxDelayPackets`.
        public var latencyDrops = 0
        public var restarts = 0

        public init() {}
    }

    public let configuration: Configuration
    public private(set) var statistics = Statistics()

    private var unwrapper = SequenceNumberUnwrapper()
    private var packets: [Int64: [UInt8]] = [:]
    private var timestamps: [Int64: UInt32] = [:]
    /// The next slot to play; `nil` before the first start.
    private var next: Int64?
    private var playing = false
    /// Ticks spent priming with at least one packet held.
    private var primingTicks = 0
    private var restartCandidate: UInt16?

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Packets held now.
    public var heldPacketCount: Int { packets.count }
    /// The RTP timestamp of the packet the last `.packet` output played.
    public private(set) var lastPlayedTimestamp: UInt32?

    /// Takes one received Opus packet (RTP payload = one Opus packet, RFC 7587 §4.2).
    public mutating func insert(_ packet: ReceivedRTPPacket) -> InsertResult {
        statistics.packetsReceived += 1
        var result = InsertResult.inserted
        let extended = unwrapper.peek(packet.sequenceNumber)
        // Held packets and `next` always lie within `maxJump` of each other: memory is bounded.
        let maxJump = Int64(configuration.maxJump)
        if let low = next ?? packets.keys.min(), extended > low + maxJump || extended < (packets.keys.max() ?? low) - maxJump {
            guard restartCandidate == packet.sequenceNumber else {
                restartCandidate = packet.sequenceNumber &+ 1
                statistics.outOfRangePackets += 1
                return .outOfRange
            }
            statistics.restarts += 1
            packets.removeAll()
            timestamps.removeAll()
            unwrapper.reset()
            next = nil
            playing = false
            primingTicks = 0
            result = .restarted
        }
        restartCandidate = nil
        let sequence = unwrapper.unwrap(packet.sequenceNumber)
        if let next, sequence < next {
            statistics.latePackets += 1
            return .late
        }
        guard packets[sequence] == nil else {
            statistics.duplicatePackets += 1
            return .duplicate
        }
        packets[sequence] = packet.payload
        timestamps[sequence] = packet.timestamp
        return result
    }

    /// One 20 ms slot of the playout clock: what to decode now.
    public mutating func tick() -> Output {
        if !playing {
            guard let lowest = packets.keys.min(), let highest = packets.keys.max() else {
                return next == nil ? .buffering : underrun()
            }
            primingTicks += 1
            guard highest - lowest + 1 >= Int64(configuration.targetDelayPackets)
                || primingTicks >= configuration.targetDelayPackets
            else { return next == nil ? .buffering : underrun() }
            if let next, lowest > next { statistics.packetsLost += Int(lowest - next) }
            next = Swift.max(next ?? lowest, lowest)
            playing = true
        }
        guard var slot = next else { return .buffering }
        // Keep the queue within the latency bound.
        if let highest = packets.keys.max() {
            while highest - slot + 1 > Int64(configuration.maxDelayPackets) {
                timestamps.removeValue(forKey: slot)
                if packets.removeValue(forKey: slot) != nil { statistics.latencyDrops += 1 } else { statistics.packetsLost += 1 }
                slot += 1
            }
            next = slot
        }
        if let payload = packets.removeValue(forKey: slot) {
            lastPlayedTimestamp = timestamps.removeValue(forKey: slot)
            next = slot + 1
            statistics.packetsPlayed += 1
            return .packet(payload)
        }
        guard !packets.isEmpty else {
            // Ran dry: conceal and prime again before resuming.
            playing = false
            primingTicks = 0
            return underrun()
        }
        next = slot + 1
        statistics.packetsLost += 1
        return .missing(next: packets[slot + 1])
    }

    /// A slot with nothing to play once started: conceal it.
    private mutating func underrun() -> Output {
        statistics.underruns += 1
        return .missing(next: nil)
    }
}
