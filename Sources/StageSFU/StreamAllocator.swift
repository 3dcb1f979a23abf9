/// Spends one subscriber's downlink estimate across its simulcast video tracks: every track
/// gets its lowest flowing layer first, then the tracks on the lowest layers move up one step at
/// a time while the sum fits, up to each subscription's own ceiling (`preferLayer`, WHEP
/// `layer`). Audio is paid for before any video. The result is a layer ceiling per track,
/// applied by each consumer's `LayerSelector` at the next keyframe.
///
/// Against flapping: staying on a layer costs its bitrate, moving up costs `upgradeMargin` ×
/// it; a track pushed down may not move up again before its back-off ends (2 s, doubling on
/// each push-down to 32 s, and back to 2 s once it has held a layer for 15 s).
public struct StreamAllocator: Sendable {
    public static let upgradeMargin = 1.2
    public static let firstBackoff: Duration = .seconds(2)
    public static let longestBackoff: Duration = .seconds(32)
    public static let settledAfter: Duration = .seconds(15)

    /// One simulcast video track of the subscriber.
    public struct Track: Sendable {
        public var id: String
        /// Measured bits per second of each layer, lowest first; 0 for a layer not flowing.
        public var layerBitrates: [Int]
        /// The subscription's own ceiling (nil: none).
        public var preferred: Int?
        /// What each layer is, as a number that orders them and stays the same when the list
        /// changes (nil: its index). The allocator remembers a track's layer by it: a track
        /// whose steps change between calls — VP8 temporal layers measured, or gone — keeps
        /// its place instead of taking the index it held for another layer.
        public var ranks: [Int]?

        public init(id: String, layerBitrates: [Int], preferred: Int? = nil, ranks: [Int]? = nil) {
            self.id = id
            self.layerBitrates = layerBitrates
            self.preferred = preferred
            self.ranks = ranks
        }

        func rank(_ layer: Int) -> Int { ranks.map { $0.indices.contains(layer) ? $0[layer] : layer } ?? layer }
    }

    private struct History: Sendable {
        /// The rank (`Track.ranks`) of the layer it holds.
        var layer: Int
        var since: ContinuousClock.Instant
        var blockedUntil: ContinuousClock.Instant
        var backoff: Duration
    }

    private var history: [String: History] = [:]
    /// The total bitrate of the next upgrade the allocator would make if the estimate allowed,
    /// for the estimator's probing (0: nothing to try).
    public private(set) var nextStep = 0
    /// Whether that upgrade waits out a back-off: not to be probed yet, and not to be taken
    /// untried the moment the back-off ends either (its owner keeps the budget below it).
    public private(set) var nextStepBlocked = false

    public init() {}

    /// The layer ceiling of each track for `budget` bits per second (video only: the caller
    /// has taken audio off). Tracks with no flowing layer are left out.
    /// - Parameter upgradesAllowed: false until a probe of the next step passed: no track goes
    ///   above the layer it holds, whatever the budget (the step is still reported in
    ///   `nextStep`); a track allocated for the first time holds none, and takes what fits. A
    ///   budget kept just under the last `nextStep` did not do that: layer rates are measured
    ///   anew each second, and a step that measured a little cheaper then fitted under it and
    ///   was taken untried.
    /// - Parameter keepingHeldLayers: no track goes below the layer it holds, whatever the
    ///   budget, if that layer still flows (the loss of a failed probe says nothing of them).
    public mutating func allocate(budget: Int, tracks: [Track], now: ContinuousClock.Instant,
                                  upgradesAllowed: Bool = true, keepingHeldLayers: Bool = false) -> [String: Int] {
        var chosen: [String: Int] = [:]
        var total = 0
        for track in tracks {
            guard let lowest = track.layerBitrates.firstIndex(where: { $0 > 0 }) else { continue }
            let start = keepingHeldLayers ? heldLayer(of: track) ?? lowest : lowest
            chosen[track.id] = start
            total += track.layerBitrates[start]
        }
        nextStep = 0
        nextStepBlocked = false
        // The track and layer of the step that did not fit.
        var stoppedAt: (track: Track, layer: Int)?
        // Up one step at a time, lowest layers first, while the sum fits.
        while true {
            let candidates = tracks.compactMap { track -> (track: Track, layer: Int, cost: Int)? in
                guard let current = chosen[track.id], let next = nextLayer(of: track, above: current),
                      history[track.id].map({ now >= $0.blockedUntil || track.rank(next) <= $0.layer }) ?? true else { return nil }
                let held = history[track.id]?.layer ?? -1
                let margin = track.rank(next) > held ? Self.upgradeMargin : 1.0
                return (track, next, Int(Double(track.layerBitrates[next]) * margin) - track.layerBitrates[current])
            }
            guard let step = candidates.min(by: { chosen[$0.track.id]! < chosen[$1.track.id]! }) else { break }
            // A track placed for the first time is not moving up.
            let upgrade = history[step.track.id].map { step.track.rank(step.layer) > $0.layer } ?? false
            guard total + step.cost <= budget, upgradesAllowed || !upgrade else {
                nextStep = total + step.cost
                stoppedAt = (step.track, step.layer)
                break
            }
            total += step.track.layerBitrates[step.layer] - step.track.layerBitrates[chosen[step.track.id]!]
            chosen[step.track.id] = step.layer
        }
        if nextStep == 0, let blocked = blockedStep(tracks: tracks, chosen: chosen, now: now) {
            nextStep = total + blocked
            nextStepBlocked = true
        }
        remember(chosen, tracks: tracks, now: now)
        // A track pushed down by this very allocation cannot take the step back up before its
        // back-off ends: a probe of it started on the next report, and passed in vain.
        if let (track, layer) = stoppedAt, let entry = history[track.id], now < entry.blockedUntil, track.rank(layer) > entry.layer {
            nextStepBlocked = true
        }
        return chosen
    }

    /// The cost of the cheapest step up that a back-off holds back, if any.
    private func blockedStep(tracks: [Track], chosen: [String: Int], now: ContinuousClock.Instant) -> Int? {
        tracks.compactMap { track -> Int? in
            guard let current = chosen[track.id], let next = nextLayer(of: track, above: current),
                  let entry = history[track.id], now < entry.blockedUntil, track.rank(next) > entry.layer else { return nil }
            return Int(Double(track.layerBitrates[next]) * Self.upgradeMargin) - track.layerBitrates[current]
        }.min()
    }

    /// The index of the layer the track holds, if it is still on offer and flowing.
    private func heldLayer(of track: Track) -> Int? {
        history[track.id].flatMap { entry in
            track.layerBitrates.indices.first { track.rank($0) == entry.layer && track.layerBitrates[$0] > 0 }
        }
    }

    /// The next flowing layer above `layer`, within the track's own ceiling.
    private func nextLayer(of track: Track, above layer: Int) -> Int? {
        let ceiling = min(track.preferred ?? track.layerBitrates.count - 1, track.layerBitrates.count - 1)
        guard layer < ceiling else { return nil }
        return track.layerBitrates[(layer + 1)...ceiling].firstIndex(where: { $0 > 0 })
    }

    /// Records each track's layer; a push-down starts (or doubles) its back-off.
    private mutating func remember(_ chosen: [String: Int], tracks: [Track], now: ContinuousClock.Instant) {
        for track in tracks {
            guard let index = chosen[track.id] else { continue }
            let id = track.id, layer = track.rank(index)
            guard var entry = history[id] else {
                history[id] = History(layer: layer, since: now, blockedUntil: now, backoff: Self.firstBackoff)
                continue
            }
            if layer < entry.layer {
                entry.blockedUntil = now + entry.backoff
                entry.backoff = min(entry.backoff * 2, Self.longestBackoff)
                entry.since = now
            } else if layer > entry.layer {
                entry.since = now
            } else if now - entry.since >= Self.settledAfter {
                entry.backoff = Self.firstBackoff
            }
            entry.layer = layer
            history[id] = entry
        }
        for id in history.keys where chosen[id] == nil { history[id] = nil }
    }
}
