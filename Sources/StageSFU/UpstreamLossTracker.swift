/// Which packets of one incoming stream (one publisher SSRC) were lost on the way in, and when
/// to ask the publisher for them (RFC 4585 §6.2.1 Generic NACK), the way libwebrtc's
/// `NackRequester` does: a gap is asked for at once, then again every round trip until the
/// packet arrives, `maximumRequests` were sent, or it is older than `maximumAge`; then the
/// tracker gives up and the stream needs a keyframe (a PLI), since the frame cannot be rebuilt.
///
/// Bounded: at most `maximumMissing` sequence numbers are tracked; a larger gap (a long outage,
/// a restart of the sender's numbering) is given up on at once.
public struct UpstreamLossTracker: Sendable {
    public static let maximumMissing = 256
    public static let maximumRequests = 8
    public static let maximumAge: Duration = .seconds(1)
    /// Re-asking sooner than this is pointless even on a LAN: the sender needs its time.
    public static let minimumInterval: Duration = .milliseconds(10)

    struct Missing: Sendable {
        var sequence: UInt16
        var missedAt: PacketTime
        var requestedAt: PacketTime?
        var requests: Int
    }

    private var highest: UInt16?
    /// Oldest first; never more than `maximumMissing`.
    private(set) var missing: [Missing] = []
    /// Whether a packet is still being asked for (`due` has work).
    public var isRepairing: Bool { !missing.isEmpty }
    /// Packets that arrived after being reported missing (late, or resent).
    public private(set) var recovered = 0
    /// Packets given up on.
    public private(set) var abandoned = 0
    /// Smoothed time from a request to the packet's arrival: the round trip to the publisher
    /// as seen by retransmissions (nil until one arrives).
    public private(set) var roundTrip: Duration?

    public init() {}

    /// What one arriving packet means for the tracker.
    public enum Arrival: Equatable, Sendable {
        /// In order, or a repair: nothing to do now.
        case ok
        /// A gap opened: these sequence numbers are missing and should be asked for now.
        case gap([UInt16])
        /// A gap too large to repair: ask for a keyframe instead.
        case tooLarge
    }

    /// Records an arriving packet's sequence number.
    public mutating func received(_ sequence: UInt16, now: PacketTime) -> Arrival {
        guard let last = highest else {
            highest = sequence
            return .ok
        }
        let ahead = sequence &- last
        if ahead == 0 { return .ok }
        if ahead < 0x8000 {
            highest = sequence
            guard ahead > 1 else { return .ok }
            let gap = Int(ahead) - 1
            guard gap <= Self.maximumMissing else {
                abandoned += missing.count + gap
                missing.removeAll(keepingCapacity: true)
                return .tooLarge
            }
            let overflow = missing.count + gap - Self.maximumMissing
            if overflow > 0 {
                abandoned += overflow
                missing.removeFirst(overflow)
            }
            var asked: [UInt16] = []
            asked.reserveCapacity(gap)
            for offset in 1...UInt16(gap) {
                let lost = last &+ offset
                missing.append(Missing(sequence: lost, missedAt: now, requestedAt: now, requests: 1))
                asked.append(lost)
            }
            return .gap(asked)
        }
        // Older than the highest: a late or resent packet.
        if let index = missing.firstIndex(where: { $0.sequence == sequence }) {
            if let requestedAt = missing[index].requestedAt, missing[index].requests == 1 { sampleRoundTrip(now - requestedAt) }
            missing.remove(at: index)
            recovered += 1
        }
        return .ok
    }

    /// The sequence numbers to ask for again now, and whether any was given up on (then the
    /// stream needs a keyframe). Call it periodically (every 10–20 ms).
    /// - Parameter roundTrip: the round trip to the publisher, if known better than `roundTrip`.
    public mutating func due(now: PacketTime, roundTrip known: Duration? = nil) -> (requests: [UInt16], gaveUp: Bool) {
        guard !missing.isEmpty else { return ([], false) }
        let interval = max(Self.minimumInterval, known ?? roundTrip ?? .milliseconds(100))
        var gaveUp = false
        missing.removeAll { entry in
            let unanswered = entry.requests >= Self.maximumRequests && entry.requestedAt.map { now - $0 >= interval } ?? true
            guard unanswered || now - entry.missedAt > Self.maximumAge else { return false }
            gaveUp = true
            abandoned += 1
            return true
        }
        var requests: [UInt16] = []
        for index in missing.indices where missing[index].requestedAt.map({ now - $0 >= interval }) ?? true {
            missing[index].requestedAt = now
            missing[index].requests += 1
            requests.append(missing[index].sequence)
        }
        return (requests, gaveUp)
    }

    /// The sender started over (a new SSRC for the same layer): forget the old numbering.
    public mutating func reset() {
        highest = nil
        missing.removeAll(keepingCapacity: true)
    }

    /// Exponentially smoothed, as RFC 6298 smooths SRTT (α = 1/8).
    private mutating func sampleRoundTrip(_ sample: Duration) {
        roundTrip = roundTrip.map { $0 * 7 / 8 + sample / 8 } ?? sample
    }
}
