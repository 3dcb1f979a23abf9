import StageWire

/// The receiver's VP8 jitter buffer: holds RTP packets until they form whole frames and emits
/// those in decode order; finds gaps to NACK (RFC 4585 §6.2.1) and decides when only a
/// keyframe can help (PLI, RFC 4585 §6.3.1).
///
/// - Order: packets are placed by extended sequence number, so reordering, duplicates and 16-bit
///   wraparound are handled; a packet for a frame already emitted or skipped is dropped as late.
/// - Frames: contiguous packets from one with S = 1, PID = 0 to the marker-bit packet of the
///   same timestamp (RFC 7741 §4.1, §4.4), assembled by `VP8Depacketizer`.
/// - Loss: a missing packet is NACKed (`nacksDue`) until it arrives or has waited
///   max(`minWaitMicros`, 2 × RTT). Then, when the frames lost are all above the temporal base
///   layer (TID > 0 and TL0PICIDX running on, RFC 7741 §4.2), they are dropped and decoding goes
///   on; frames that predicted from them are dropped too, until their layer syncs again (a
///   frame with Y = 1) or a keyframe comes. Otherwise the buffer emits nothing until the next
///   complete keyframe, since a VP8 delta frame cannot be decoded after a lost one.
///   `keyframeNeeded` is true while waiting — and at start, until the first keyframe. A gap
///   followed by a complete keyframe is skipped at once, with no wait and no request.
/// - Memory: at most `maxPackets` sequence numbers are spanned; beyond that it flushes.
///
/// A plain value driven by one owner: no clock is read (times are passed in, in µs), no I/O.
public struct VideoJitterBuffer: Sendable {
    public let configuration: Configuration
    /// Counters by reason.
    public internal(set) var statistics = Statistics()
    /// True at start until a keyframe is emitted, and after a loss that could not be repaired.
    /// Send a PLI when `keyframeRequestDue(now:)` says so.
    public internal(set) var keyframeNeeded = true

    var mode = Mode.awaitingKeyframe
    var unwrapper = SequenceNumberUnwrapper()
    /// The first extended sequence number still wanted; anything below is late. `nil` before
    /// the first packet.
    var floor: Int64?
    /// Nothing has been emitted or skipped yet: the floor may still move down a little, for
    /// packets reordered before the first one received.
    var floorIsProvisional = true
    var packets: [Int64: HeldPacket] = [:]
    var missing: [Int64: MissingPacket] = [:]
    /// Held packets that begin a keyframe.
    var keyframeStarts: Set<Int64> = []
    /// The last extended sequence number stored in each slot, to tell duplicates of packets
    /// already emitted from late packets.
    var history = [Int64](repeating: .min, count: VideoJitterBuffer.historySize)
    /// After a packet far behind the others: the sequence number that would confirm a restart.
    var restartCandidate: UInt16?
    var lastKeyframeRequestMicros: UInt64?
    var hasReceivedPacket = false
    /// Which temporal layers still decode, and the newest frame taken out.
    var temporal = TemporalLayerTracker()

    static let historySize = 1024

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Packets held now.
    public var heldPacketCount: Int { packets.count }

    /// Takes one received packet.
    /// - Parameters:
    ///   - packet: header fields and payload (VP8 payload descriptor first).
    ///   - now: arrival time in µs, on the clock later passed to `popCompleteFrames` and `nacksDue`.
    public mutating func insert(_ packet: ReceivedRTPPacket, now: UInt64) -> InsertResult {
        statistics.packetsReceived += 1
        var result = InsertResult.inserted
        var extended = unwrapper.peek(packet.sequenceNumber)

        if let floor, extended < floor {
            if history[slot(extended)] == extended {
                statistics.duplicatePackets += 1
                return .duplicate
            }
            let highest = unwrapper.highest ?? extended
            if floorIsProvisional, floor - extended <= Int64(configuration.startReorderWindow),
                highest - extended < Int64(configuration.maxPackets) {
                lowerFloor(to: extended, now: now)
            } else if highest - extended > Int64(configuration.maxPackets) {
                // Far behind everything: a sender restart if the next packet follows this one
                // (RFC 3550 A.1's bad_seq rule).
                guard restartCandidate == packet.sequenceNumber else {
                    restartCandidate = packet.sequenceNumber &+ 1
                    statistics.latePackets += 1
                    return .late
                }
                statistics.restarts += 1
                startOver()
                extended = unwrapper.peek(packet.sequenceNumber)
                result = .flushed
            } else {
                statistics.latePackets += 1
                return .late
            }
        }
        restartCandidate = nil
        if history[slot(extended)] == extended || packets[extended] != nil {
            statistics.duplicatePackets += 1
            return .duplicate
        }
        if let floor, extended - floor >= Int64(configuration.maxPackets) {
            statistics.flushes += 1
            discard(below: extended)
            self.floor = extended
            floorIsProvisional = false
            needKeyframe()
            result = .flushed
        }

        let previousHighest = unwrapper.highest
        extended = unwrapper.unwrap(packet.sequenceNumber)
        if floor == nil { floor = extended }
        if let previousHighest, extended > previousHighest {
            let firstGap = Swift.max(previousHighest + 1, floor ?? extended)
            for gap in Swift.max(firstGap, extended - Int64(configuration.maxPackets))..<extended {
                missing[gap] = MissingPacket(detectedMicros: now)
            }
        } else if missing.removeValue(forKey: extended) != nil {
            statistics.packetsRecovered += 1
            if result == .inserted { result = .recovered }
        }

        history[slot(extended)] = extended
        hasReceivedPacket = true
        let held = hold(packet, now: now)
        packets[extended] = held
        if held.startsKeyframe { keyframeStarts.insert(extended) }
        return result
    }

    /// Emits the frames that are complete and next in decode order, and applies the timeouts:
    /// a gap older than max(`minWaitMicros`, 2 × `rtt`) is given up for the next keyframe.
    /// - Parameters:
    ///   - now: the current time in µs.
    ///   - rtt: the round-trip time in µs (from RTCP, `RTCPTiming.roundTripTime`).
    public mutating func popCompleteFrames(now: UInt64, rtt: UInt64) -> [ReceivedVP8Frame] {
        let maxWait = Swift.max(configuration.minWaitMicros, rtt > UInt64.max / 2 ? .max : 2 * rtt)
        var frames: [ReceivedVP8Frame] = []
        while let floor {
            switch mode {
            case .decoding:
                switch scan(from: floor) {
                case let .complete(range):
                    emit(range, into: &frames)
                case let .waiting(sequence):
                    if let keyframe = keyframeStarts.min(), case .complete = scan(from: keyframe) {
                        // A whole keyframe lies beyond the gap and needs nothing before it: go
                        // straight there (the awaiting branch emits it), no request needed.
                        mode = .awaitingKeyframe
                        continue
                    }
                    guard expired(missing[sequence]?.detectedMicros, now: now, maxWait: maxWait) else { return frames }
                    // The gap will not be repaired in time: skip the frames lost if they are
                    // above the base layer, else skip to the next keyframe.
                    if !skipFramesAboveBaseLayer(lostAt: sequence) { needKeyframe() }
                }
            case .awaitingKeyframe:
                guard let start = keyframeStarts.lazy.filter({ $0 >= floor }).min() else {
                    pruneExpired(now: now, maxWait: maxWait)
                    return frames
                }
                if start > floor { advanceFloor(to: start) }
                switch scan(from: start) {
                case let .complete(range):
                    emit(range, into: &frames)
                case let .waiting(sequence):
                    let since = missing[sequence]?.detectedMicros ?? packets[start]?.arrivalMicros
                    guard expired(since, now: now, maxWait: maxWait) else { return frames }
                    // This keyframe cannot be completed: drop it and wait for another.
                    advanceFloor(to: sequence + 1)
                }
            }
        }
        return frames
    }

    // MARK: - Internals

    func slot(_ extended: Int64) -> Int { Int(extended & Int64(Self.historySize - 1)) }

    /// The packet as held, with what its descriptor says; counts a malformed descriptor (the
    /// packet is still held, so its frame fails assembly at once instead of waiting for a repair).
    mutating func hold(_ packet: ReceivedRTPPacket, now: UInt64) -> HeldPacket {
        guard let (descriptor, frame) = try? VP8Depacketizer.parse(packet) else {
            statistics.malformedPackets += 1
            return HeldPacket(packet: packet, arrivalMicros: now, descriptor: nil, startsKeyframe: false)
        }
        return HeldPacket(packet: packet, arrivalMicros: now, descriptor: descriptor,
                          startsKeyframe: descriptor.startsFrame && FrameStart(vp8Data: packet.payload[frame]).isKeyframe)
    }

    /// The frame starting at `start`: complete up to a marker bit or a timestamp change, or
    /// waiting for the first sequence number not yet held.
    func scan(from start: Int64) -> Scan {
        guard let first = packets[start] else { return .waiting(start) }
        var sequence = start
        while let held = packets[sequence] {
            if held.packet.timestamp != first.packet.timestamp { return .complete(start..<sequence) }
            if held.packet.marker { return .complete(start..<(sequence + 1)) }
            sequence += 1
        }
        return .waiting(sequence)
    }

    /// Assembles the packets of `range` into a frame (or drops it as broken) and moves past it.
    mutating func emit(_ range: Range<Int64>, into frames: inout [ReceivedVP8Frame]) {
        let description = packets[range.lowerBound]?.descriptor
        let framePackets = range.compactMap { packets.removeValue(forKey: $0)?.packet }
        for sequence in range { keyframeStarts.remove(sequence) }
        floor = range.upperBound
        floorIsProvisional = false
        do {
            let frame = try VP8Depacketizer.assemble(framePackets)
            if mode == .awaitingKeyframe, !frame.isKeyframe {
                statistics.framesDropped += 1
                return
            }
            if let description, !frame.isKeyframe, !temporal.canDecode(description) {
                // It predicts from a frame lost on a higher temporal layer.
                statistics.framesDropped += 1
                temporal.skipped(description)
                return
            }
            frames.append(frame)
            statistics.framesEmitted += 1
            if frame.isKeyframe {
                mode = .decoding
                keyframeNeeded = false
            }
            if let description {
                if frame.isKeyframe { temporal.decodedKeyframe(description) } else { temporal.decoded(description) }
            }
        } catch {
            statistics.framesDropped += 1
            needKeyframe()
        }
    }

    /// The decoder failed on an emitted frame: nothing but a keyframe is emitted from now on,
    /// and `keyframeRequestDue` asks for one (rate-limited like any other request).
    public mutating func decoderNeedsKeyframe() {
        needKeyframe()
    }

    mutating func needKeyframe() {
        mode = .awaitingKeyframe
        keyframeNeeded = true
    }

    /// Whether something that started at `since` has waited longer than `maxWait`.
    func expired(_ since: UInt64?, now: UInt64, maxWait: UInt64) -> Bool {
        guard let since, now >= since else { return false }
        return now - since > maxWait
    }

    /// While waiting for a keyframe with none in sight: lets go of packets and gaps older than
    /// `maxWait` (delta frames that can no longer be decoded), keeping memory short.
    mutating func pruneExpired(now: UInt64, maxWait: UInt64) {
        guard var newFloor = floor else { return }
        for (sequence, held) in packets where expired(held.arrivalMicros, now: now, maxWait: maxWait) {
            newFloor = Swift.max(newFloor, sequence + 1)
        }
        for (sequence, gap) in missing where expired(gap.detectedMicros, now: now, maxWait: maxWait) {
            newFloor = Swift.max(newFloor, sequence + 1)
        }
        if let floor, newFloor > floor { advanceFloor(to: newFloor) }
    }

    /// Moves the floor up, discarding what lies below it.
    mutating func advanceFloor(to newFloor: Int64) {
        discard(below: newFloor)
        floor = newFloor
        floorIsProvisional = false
    }

    /// Drops held packets (counting their frames) and gaps (counting them lost) below `bound`.
    mutating func discard(below bound: Int64) {
        var timestamps = Set<UInt32>()
        for (sequence, held) in packets where sequence < bound {
            timestamps.insert(held.packet.timestamp)
            packets[sequence] = nil
        }
        statistics.framesDropped += timestamps.count
        for sequence in missing.keys where sequence < bound {
            missing[sequence] = nil
            statistics.packetsLost += 1
        }
        keyframeStarts = keyframeStarts.filter { $0 >= bound }
    }

    /// At start, takes a packet from before the first one received: the floor moves down to it
    /// and the sequence numbers in between become gaps.
    mutating func lowerFloor(to extended: Int64, now: UInt64) {
        guard let floor else { return }
        for sequence in (extended + 1)..<floor where packets[sequence] == nil {
            missing[sequence] = MissingPacket(detectedMicros: now)
        }
        self.floor = extended
    }

    /// Forgets everything after a sender restart; the next packet is the new first one.
    mutating func startOver() {
        discard(below: .max)
        unwrapper.reset()
        history = [Int64](repeating: .min, count: Self.historySize)
        floor = nil
        floorIsProvisional = true
        needKeyframe()
    }
}
