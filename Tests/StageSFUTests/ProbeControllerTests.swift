import StageSFU
import Testing

/// `ProbeController`: when a probe may start, its rate and padding, how it ends (judged, given
/// up, cancelled) and what its aftermath keeps. Every instant is passed in.
@Suite struct ProbeControllerTests {
    static let start = ContinuousClock.now

    /// A controller with a probe of `target` started at `start` on 300 kbps of media, 1000
    /// packets forwarded before it; with transport-cc numbering from 100 unless `transportCC` is false.
    static func probing(target: Int = 400_000, switchesLayer: Bool = true, mediaBitrate: Int = 300_000,
                        transportCC: Bool = true) -> ProbeController {
        var probes = ProbeController()
        probes.start(target: target, switchesLayer: switchesLayer, mediaBitrate: mediaBitrate, packetsSent: 1_000,
                     firstTransportSequence: transportCC ? 100 : nil, now: start)
        return probes
    }

    @Test("a probe may start toward steps within twice the estimate", arguments: [
        (wanted: 0, estimate: 500_000, mayStart: false),
        (wanted: 900_000, estimate: 500_000, mayStart: true),
        (wanted: 1_000_000, estimate: 500_000, mayStart: true),
        (wanted: 1_000_001, estimate: 500_000, mayStart: false),
        (wanted: 300_000, estimate: 500_000, mayStart: true),
    ])
    func mayStart(wanted: Int, estimate: Int, mayStart: Bool) {
        #expect(ProbeController().mayStart(wanted: wanted, estimate: estimate, now: Self.start) == mayStart)
    }

    @Test("no probe starts while one runs, nor during a failure's wait", arguments: [
        (failedAfter: Duration?.none, at: Duration.zero, mayStart: false),
        (failedAfter: .milliseconds(900), at: .milliseconds(2_899), mayStart: false),
        (failedAfter: .milliseconds(900), at: .milliseconds(2_900), mayStart: true),
    ])
    func mayStartAfter(failedAfter: Duration?, at offset: Duration, mayStart: Bool) {
        var probes = Self.probing()
        if let failedAfter {
            let verdict = probes.judge(loss: 0.5, now: Self.start + failedAfter)
            #expect(verdict == .failed)
        }
        #expect(probes.mayStart(wanted: 400_000, estimate: 400_000, now: Self.start + offset) == mayStart)
    }

    @Test("the padding tops the media up to the target and its headroom, at 50 kbps at least", arguments: [
        (target: 400_000, switchesLayer: true, media: 300_000, padding: 200_000),
        (target: 400_000, switchesLayer: false, media: 300_000, padding: 120_000),
        (target: 400_000, switchesLayer: false, media: 400_000, padding: 50_000),
        (target: 1_000_000, switchesLayer: true, media: 0, padding: 1_250_000),
    ])
    func rate(target: Int, switchesLayer: Bool, media: Int, padding: Int) throws {
        let probe = try #require(Self.probing(target: target, switchesLayer: switchesLayer, mediaBitrate: media).probe)
        #expect(probe.bitsPerSecond == padding)
        #expect(probe.target == target && probe.mediaBitrate == media)
        #expect(probe.until == Self.start + ProbeController.duration)
    }

    struct Judging: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var loss: Double
        /// Transport-cc arrivals recorded during the probe: (received, lost).
        var arrivals = (received: 0, lost: 0)
        var transportCC = true
        var after: Duration = .milliseconds(900)
        var verdict: ProbeController.Verdict?
    }

    @Test("the first report after its duration judges the probe, by the media's loss and its own arrivals", arguments: [
        Judging(testDescription: "too early: still running", loss: 0, after: .milliseconds(899), verdict: nil),
        Judging(testDescription: "no loss: passed", loss: 0, verdict: .passed(target: 400_000)),
        Judging(testDescription: "1.9 % loss: passed", loss: 0.019, verdict: .passed(target: 400_000)),
        Judging(testDescription: "2 % loss: failed", loss: 0.02, verdict: .failed),
        Judging(testDescription: "1 of 20 arrivals lost: failed", loss: 0, arrivals: (19, 1), verdict: .failed),
        Judging(testDescription: "1 of 10 arrivals lost: too few to tell", loss: 0, arrivals: (9, 1), verdict: .passed(target: 400_000)),
        Judging(testDescription: "no transport-cc: arrivals not counted", loss: 0, arrivals: (19, 1), transportCC: false,
                verdict: .passed(target: 400_000)),
    ])
    func judge(_ row: Judging) {
        var probes = Self.probing(transportCC: row.transportCC)
        var sequence: UInt16 = 100
        for arrived in Array(repeating: true, count: row.arrivals.received) + Array(repeating: false, count: row.arrivals.lost) {
            probes.transportArrival(sequence: sequence, arrived: arrived)
            sequence &+= 1
        }
        let now = Self.start + row.after
        let judged = probes.judge(loss: row.loss, now: now)
        #expect(judged == row.verdict)
        #expect((probes.probe != nil) == (row.verdict == nil))
        guard let verdict = row.verdict else { return }
        #expect(probes.carriedBeforeProbe(now: now) == 300_000, "its aftermath: the media's rate is the floor")
        #expect(probes.keepsLayersAfterFailedProbe(now: now) == (verdict == .failed))
        #expect(probes.mayStart(wanted: 400_000, estimate: 400_000, now: now) == (verdict != .failed))
    }

    @Test("NACKs during a probe give it up at 3 sequence numbers and 2 % of the media sent since it started", arguments: [
        (nacks: [(1, 1_050), (1, 1_050)], givenUp: false),
        (nacks: [(1, 1_050), (1, 1_050), (1, 1_050)], givenUp: true),
        (nacks: [(3, 1_050)], givenUp: true),
        (nacks: [(3, 1_400), (4, 1_400)], givenUp: false),
        (nacks: [(3, 1_400), (5, 1_400)], givenUp: true),
    ])
    func nacks(nacks: [(count: Int, packetsSent: Int)], givenUp: Bool) {
        var probes = Self.probing()
        let results = nacks.map { probes.nacked(count: $0.count, packetsSent: $0.packetsSent, now: Self.start + .milliseconds(300)) }
        #expect(results.dropLast().allSatisfy { !$0 }, "given up once, at the last")
        #expect(results.last == givenUp)
        #expect((probes.probe == nil) == givenUp)
        #expect(probes.keepsLayersAfterFailedProbe(now: Self.start + .milliseconds(300)) == givenUp)
    }

    @Test("its own packets lost give the probe up: 3 at least, and 2 % of those reported", arguments: [
        (received: 7, lost: 2, givenUp: false),
        (received: 7, lost: 3, givenUp: true),
        (received: 197, lost: 3, givenUp: false),
        (received: 196, lost: 4, givenUp: true),
    ])
    func arrivals(received: Int, lost: Int, givenUp: Bool) {
        var probes = Self.probing()
        for offset in 0..<(received + lost) {
            probes.transportArrival(sequence: 100 &+ UInt16(offset), arrived: offset < received)
        }
        let gaveUp = probes.giveUpIfItsPacketsAreLost(now: Self.start + .milliseconds(400))
        #expect(gaveUp == givenUp)
        #expect((probes.probe == nil) == givenUp)
    }

    @Test("packets numbered before the probe, and feedback without transport-cc numbering, fail nothing")
    func arrivalsOutsideProbe() {
        var probes = Self.probing()
        for sequence: UInt16 in 90..<100 { probes.transportArrival(sequence: sequence, arrived: false) }
        let earlier = probes.giveUpIfItsPacketsAreLost(now: Self.start)
        #expect(!earlier)
        var plain = Self.probing(transportCC: false)
        for sequence: UInt16 in 100..<110 { plain.transportArrival(sequence: sequence, arrived: false) }
        let untracked = plain.giveUpIfItsPacketsAreLost(now: Self.start)
        #expect(!untracked)
        var idle = ProbeController()
        idle.transportArrival(sequence: 0, arrived: false)
        let none = idle.giveUpIfItsPacketsAreLost(now: Self.start)
        #expect(!none)
    }

    @Test("an over-use fails the probe under way, and with none changes nothing")
    func overuse() {
        var probes = Self.probing()
        let gaveUp = probes.giveUp(now: Self.start + .milliseconds(200))
        #expect(gaveUp)
        #expect(probes.probe == nil && probes.keepsLayersAfterFailedProbe(now: Self.start + .milliseconds(200)))
        #expect(!probes.mayStart(wanted: 400_000, estimate: 400_000, now: Self.start + .milliseconds(2_199)))
        var idle = ProbeController()
        let idleGaveUp = idle.giveUp(now: Self.start)
        #expect(!idleGaveUp)
        #expect(idle.mayStart(wanted: 400_000, estimate: 400_000, now: Self.start))
    }

    @Test("padding owed per 20 ms tick, a packet's fraction carried to the next", arguments: [
        (target: 400_000, switchesLayer: false, media: 400_000, packetBytes: 300.0, counts: [0, 0, 1, 0, 1, 0, 0, 1]),
        (target: 1_000_000, switchesLayer: true, media: 0, packetBytes: 1_250.0, counts: [2, 3, 2, 3]),
    ])
    func padding(target: Int, switchesLayer: Bool, media: Int, packetBytes: Double, counts: [Int]) {
        var probes = Self.probing(target: target, switchesLayer: switchesLayer, mediaBitrate: media)
        let due = counts.map { _ in probes.paddingDue(packetBytes: packetBytes) }
        #expect(due == counts)
        var idle = ProbeController()
        let idleDue = idle.paddingDue(packetBytes: packetBytes)
        #expect(idleDue == nil)
    }

    @Test("padding bytes sent are counted until a report takes them")
    func paddingBytes() {
        var probes = Self.probing()
        probes.paddingSent(bytes: 300)
        probes.paddingSent(bytes: 250)
        let taken = probes.takePaddingBytes()
        let again = probes.takePaddingBytes()
        #expect(taken == 550 && again == 0)
    }

    @Test("the aftermath lasts up to 5 s: the media's rate is the floor, and after a failure the layers stay", arguments: [
        (failed: true, after: Duration.milliseconds(4_999), carried: 300_000, keepsLayers: true),
        (failed: true, after: .seconds(5), carried: 0, keepsLayers: false),
        (failed: false, after: .milliseconds(4_999), carried: 300_000, keepsLayers: false),
    ])
    func aftermath(failed: Bool, after: Duration, carried: Int, keepsLayers: Bool) {
        var probes = Self.probing()
        let stopped = Self.start + .milliseconds(900)
        _ = probes.judge(loss: failed ? 0.5 : 0, now: stopped)
        #expect(probes.carriedBeforeProbe(now: stopped + after) == carried)
        #expect(probes.keepsLayersAfterFailedProbe(now: stopped + after) == keepsLayers)
    }

    @Test("a clean report of an interval begun after the probe stopped ends its aftermath", arguments: [
        (clean: true, since: Duration.zero, ended: true),
        (clean: true, since: .milliseconds(-1), ended: false),
        (clean: false, since: .seconds(1), ended: false),
    ])
    func aftermathEnds(clean: Bool, since: Duration, ended: Bool) {
        var probes = Self.probing()
        let stopped = Self.start + .milliseconds(900)
        _ = probes.judge(loss: 0.5, now: stopped)
        probes.reported(clean: clean, since: stopped + since)
        #expect(probes.keepsLayersAfterFailedProbe(now: stopped + .seconds(2)) == !ended)
    }

    @Test("a failure's aftermath outlasts the start of the next probe, which keeps its layers until it stops")
    func aftermathDuringNextProbe() {
        var probes = Self.probing()
        let stopped = Self.start + .milliseconds(900)
        _ = probes.judge(loss: 0.5, now: stopped)
        let next = stopped + .seconds(2)
        probes.start(target: 400_000, switchesLayer: true, mediaBitrate: 250_000, packetsSent: 2_000, firstTransportSequence: nil, now: next)
        probes.reported(clean: true, since: next)
        #expect(probes.keepsLayersAfterFailedProbe(now: next), "not ended while a probe runs")
        #expect(probes.carriedBeforeProbe(now: next) == 250_000, "the probe under way's media rate")
        let verdict = probes.judge(loss: 0, now: next + ProbeController.duration)
        #expect(verdict == .passed(target: 400_000))
        #expect(!probes.keepsLayersAfterFailedProbe(now: next + ProbeController.duration), "its pass replaced the failure")
    }

    @Test("a cancelled probe leaves no aftermath and no wait")
    func cancel() {
        var probes = Self.probing()
        probes.cancel()
        #expect(probes.probe == nil)
        #expect(probes.carriedBeforeProbe(now: Self.start) == 0 && !probes.keepsLayersAfterFailedProbe(now: Self.start))
        #expect(probes.mayStart(wanted: 400_000, estimate: 400_000, now: Self.start))
        let due = probes.paddingDue(packetBytes: 300)
        let verdict = probes.judge(loss: 0, now: Self.start + .seconds(1))
        #expect(due == nil && verdict == nil)
    }
}
