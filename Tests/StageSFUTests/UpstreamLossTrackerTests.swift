import Testing
@testable import StageSFU

/// Asking a publisher again for what was lost on the way in (RFC 4585 §6.2.1), with retries
/// every round trip, a limit, and a keyframe when a packet is given up on.
struct UpstreamLossTrackerTests {
    static let start = ContinuousClock.now
    static func at(_ ms: Int) -> PacketTime { PacketTime(start + .milliseconds(ms)) }

    @Test("a gap is asked for at once; in-order packets and duplicates ask for nothing")
    func gapIsAskedAtOnce() {
        var tracker = UpstreamLossTracker()
        #expect(tracker.received(100, now: Self.at(0)) == .ok)
        #expect(tracker.received(101, now: Self.at(1)) == .ok)
        #expect(tracker.received(101, now: Self.at(1)) == .ok)
        #expect(tracker.received(104, now: Self.at(2)) == .gap([102, 103]))
        #expect(tracker.received(65535, now: Self.at(3)) == .ok, "far behind: an old duplicate, not a gap")
    }

    @Test("sequence numbers wrap: 65534 → 1 misses 65535 and 0")
    func wraps() {
        var tracker = UpstreamLossTracker()
        _ = tracker.received(65534, now: Self.at(0))
        #expect(tracker.received(1, now: Self.at(1)) == .gap([65535, 0]))
    }

    @Test("a missing packet is asked for again every round trip until it arrives; its arrival counts as recovered")
    func retriesEveryRoundTrip() {
        var tracker = UpstreamLossTracker()
        _ = tracker.received(1, now: Self.at(0))
        #expect(tracker.received(3, now: Self.at(0)) == .gap([2]))
        #expect(tracker.due(now: Self.at(50), roundTrip: .milliseconds(100)).requests == [])
        #expect(tracker.due(now: Self.at(100), roundTrip: .milliseconds(100)).requests == [2])
        #expect(tracker.due(now: Self.at(150), roundTrip: .milliseconds(100)).requests == [])
        #expect(tracker.received(2, now: Self.at(180)) == .ok)
        #expect(tracker.recovered == 1)
        #expect(tracker.due(now: Self.at(400), roundTrip: .milliseconds(100)) == ([], false))
    }

    @Test("after the last request goes unanswered for a round trip the packet is given up on: a keyframe is needed")
    func givesUpAfterMaximumRequests() {
        var tracker = UpstreamLossTracker()
        _ = tracker.received(1, now: Self.at(0))
        _ = tracker.received(3, now: Self.at(0))
        var requests = 1
        var gaveUp = false
        for step in 1...20 where !gaveUp {
            let due = tracker.due(now: Self.at(step * 20), roundTrip: .milliseconds(20))
            requests += due.requests.count
            gaveUp = due.gaveUp
        }
        #expect(gaveUp)
        #expect(requests == UpstreamLossTracker.maximumRequests)
        #expect(tracker.abandoned == 1 && tracker.missing.isEmpty)
    }

    @Test("a packet older than the one-second window is given up on whatever the round trip")
    func givesUpAfterMaximumAge() {
        var tracker = UpstreamLossTracker()
        _ = tracker.received(1, now: Self.at(0))
        _ = tracker.received(3, now: Self.at(0))
        #expect(tracker.due(now: Self.at(900), roundTrip: .seconds(2)) == ([], false))
        #expect(tracker.due(now: Self.at(1001), roundTrip: .seconds(2)) == ([], true))
    }

    @Test("a gap larger than the tracker holds asks for a keyframe instead; the oldest go first when it fills")
    func bounded() {
        var tracker = UpstreamLossTracker()
        _ = tracker.received(0, now: Self.at(0))
        #expect(tracker.received(UInt16(UpstreamLossTracker.maximumMissing + 2), now: Self.at(1)) == .tooLarge)
        #expect(tracker.missing.isEmpty)
        var fresh = UpstreamLossTracker()
        _ = fresh.received(0, now: Self.at(0))
        _ = fresh.received(201, now: Self.at(1))            // 1…200 missing
        _ = fresh.received(302, now: Self.at(2))            // 202…301 missing: 300 in all
        #expect(fresh.missing.count == UpstreamLossTracker.maximumMissing)
        #expect(fresh.missing.first?.sequence == 45 && fresh.missing.last?.sequence == 301)
        #expect(fresh.abandoned == 44)
    }

    @Test("the round trip is learnt from the first request's answer, smoothed")
    func learnsTheRoundTrip() {
        var tracker = UpstreamLossTracker()
        _ = tracker.received(1, now: Self.at(0))
        _ = tracker.received(3, now: Self.at(0))
        _ = tracker.received(2, now: Self.at(80))
        #expect(tracker.roundTrip == .milliseconds(80))
        _ = tracker.received(5, now: Self.at(100))
        _ = tracker.received(4, now: Self.at(140))
        #expect(tracker.roundTrip == .milliseconds(75))
    }
}
