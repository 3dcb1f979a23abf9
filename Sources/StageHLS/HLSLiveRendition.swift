/// One rendition of a live channel: a sliding window of media segments made of parts, fed
/// chunk by chunk, with the positions blocking reloads wait for (RFC 8216bis §4.4, §6.2.5.2).
/// Media sequence numbers keep counting across producer restarts; a restart is a discontinuity.
public struct HLSLiveRendition: Sendable {
    public struct Part: Sendable {
        public var duration: Double
        public var independent: Bool
        public var bytes: [UInt8]
    }

    public struct Segment: Sendable {
        public var sequence: Int
        public var parts: [Part] = []
        /// Wall-clock time of its first frame, ms since 1970.
        public var programDateMillis: Int64
        /// EXT-X-DISCONTINUITY before it: the producer restarted.
        public var discontinuity: Bool
        /// The init section generation its parts need (EXT-X-MAP).
        public var initGeneration: Int
        public var isComplete = false

        public var duration: Double { parts.reduce(0) { $0 + $1.duration } }
        public var bytes: [UInt8] { parts.flatMap(\.bytes) }
    }

    /// Where the stream is: the last segment and part that exist.
    public struct Position: Sendable, Equatable, Comparable {
        public var sequence: Int
        public var part: Int
        public init(sequence: Int, part: Int) {
            self.sequence = sequence
            self.part = part
        }
        public static func < (a: Position, b: Position) -> Bool { (a.sequence, a.part) < (b.sequence, b.part) }
    }

    /// Complete segments kept in the playlist (and their parts served), besides the open one.
    public let windowSegments: Int
    public private(set) var segments: [Segment] = []
    /// EXT-X-DISCONTINUITY-SEQUENCE: discontinuities that slid out of the window.
    public private(set) var discontinuitySequence = 0
    public private(set) var initSections: [Int: [UInt8]] = [:]
    public private(set) var initGeneration = 0
    public private(set) var ended = false
    private var nextSequence = 0
    private var pendingDiscontinuity = false
    /// The longest part and segment seen (EXT-X-PART-INF, EXT-X-TARGETDURATION must cover them).
    public private(set) var longestPart = 0.0
    public private(set) var longestSegment = 0.0

    public init(windowSegments: Int) {
        precondition(windowSegments >= 1)
        self.windowSegments = windowSegments
    }

    public var mediaSequence: Int { segments.first?.sequence ?? nextSequence }
    public var openSegment: Segment? { segments.last.flatMap { $0.isComplete ? nil : $0 } }
    public var completeSegments: ArraySlice<Segment> { segments.last?.isComplete == false ? segments.dropLast() : segments[...] }

    /// The last part that exists, nil before the first.
    public var lastPosition: Position? {
        guard let last = segments.last(where: { !$0.parts.isEmpty }) else { return nil }
        return Position(sequence: last.sequence, part: last.parts.count - 1)
    }

    /// The next part the producer will deliver (EXT-X-PRELOAD-HINT), nil once ended.
    public var nextPosition: Position? {
        guard !ended else { return nil }
        if let open = openSegment { return Position(sequence: open.sequence, part: open.parts.count) }
        return Position(sequence: nextSequence, part: 0)
    }

    /// A new init section (a producer started or restarted). After the first, the next segment
    /// is a discontinuity and the open one is closed as it stands.
    public mutating func setInitSection(_ bytes: [UInt8]) {
        if !initSections.isEmpty { markDiscontinuity() }
        initGeneration += 1
        initSections[initGeneration] = bytes
        ended = false
        trim()
    }

    /// The producer stopped mid-stream: what is open is closed, the next segment starts afresh.
    public mutating func markDiscontinuity() {
        closeOpenSegment()
        pendingDiscontinuity = !segments.isEmpty
    }

    /// Appends one part; returns its position. Parts before the first init section are dropped.
    @discardableResult
    public mutating func append(_ chunk: HLSChunk) -> Position? {
        guard chunk.kind == .part, !initSections.isEmpty else { return nil }
        if chunk.startsSegment || openSegment == nil {
            closeOpenSegment()
            segments.append(Segment(sequence: nextSequence, programDateMillis: chunk.programDateMillis,
                                    discontinuity: pendingDiscontinuity, initGeneration: initGeneration))
            nextSequence += 1
            pendingDiscontinuity = false
        }
        let index = segments.count - 1
        segments[index].parts.append(Part(duration: chunk.duration, independent: chunk.independent, bytes: chunk.bytes))
        longestPart = max(longestPart, chunk.duration)
        let position = Position(sequence: segments[index].sequence, part: segments[index].parts.count - 1)
        if chunk.endsSegment { closeOpenSegment() }
        trim()
        return position
    }

    /// The producer finished: the open segment is complete and the playlist gets EXT-X-ENDLIST.
    public mutating func end() {
        closeOpenSegment()
        ended = true
    }

    public func segment(_ sequence: Int) -> Segment? {
        guard let first = segments.first, sequence >= first.sequence, sequence - first.sequence < segments.count else { return nil }
        return segments[sequence - first.sequence]
    }

    public func part(_ position: Position) -> Part? {
        guard let segment = segment(position.sequence), segment.parts.indices.contains(position.part) else { return nil }
        return segment.parts[position.part]
    }

    /// Whether a playlist answering `_HLS_msn=sequence[&_HLS_part=part]` can be sent now: the
    /// part exists (or its segment is complete, or it slid out), or, without a part, the
    /// segment is complete (RFC 8216bis §6.2.5.2).
    public func satisfies(sequence: Int, part: Int?) -> Bool {
        if ended || sequence < mediaSequence { return true }
        guard let segment = segment(sequence) else { return false }
        if segment.isComplete { return true }
        guard let part else { return false }
        return segment.parts.count > part
    }

    private mutating func closeOpenSegment() {
        guard let last = segments.indices.last, !segments[last].isComplete else { return }
        if segments[last].parts.isEmpty {
            segments.removeLast()
            nextSequence -= 1
            return
        }
        segments[last].isComplete = true
        longestSegment = max(longestSegment, segments[last].duration)
    }

    private mutating func trim() {
        while completeSegments.count > windowSegments {
            let removed = segments.removeFirst()
            if removed.discontinuity { discontinuitySequence += 1 }
        }
        let used = Set(segments.map(\.initGeneration) + [initGeneration])
        initSections = initSections.filter { used.contains($0.key) }
    }
}
