import Testing
@testable import StageSFU
import StageWire

/// A subscriber's downlink estimate (loss-based, GCC's shape) and the layers it buys.
struct StreamAllocatorTests {
    static let start = ContinuousClock.now
    static func at(_ seconds: Int) -> ContinuousClock.Instant { start + .seconds(seconds) }
    /// A three-layer track: 150 kbps, 500 kbps, 1.5 Mbps.
    static func track(_ id: String = "v", preferred: Int? = nil) -> StreamAllocator.Track {
        .init(id: id, layerBitrates: [150_000, 500_000, 1_500_000], preferred: preferred)
    }

    @Test("heavy loss brings the estimate down to what got through; a clean link raises it to 1.5 × the traffic, or past it toward the next step")
    func estimator() {
        var estimator = DownlinkEstimator()
        #expect(estimator.estimate == DownlinkEstimator.maximum)
        estimator.receiverReport(fractionLost: 0.8, sentBitrate: 1_600_000)
        #expect(estimator.estimate == 320_000, "1.6 Mbps sent, 20 % arrived")
        estimator.receiverReport(fractionLost: 0.05, sentBitrate: 300_000)
        #expect(estimator.estimate == 320_000, "2–10 % lost: held")
        estimator.receiverReport(fractionLost: 0, sentBitrate: 160_000)
        #expect(estimator.estimate == 320_000, "above 1.5 × the traffic (240 kbps) and nothing to try: held")
        estimator.receiverReport(fractionLost: 0, sentBitrate: 250_000)
        #expect(estimator.estimate == 375_000, "raised by 30 %, to at most 1.5 × the traffic")
        estimator.receiverReport(fractionLost: 0, sentBitrate: 250_000)
        #expect(estimator.estimate == 375_000, "at 1.5 × the traffic: held")
        estimator.receiverReport(fractionLost: 0, sentBitrate: 250_000, wanted: 600_000)
        #expect(estimator.estimate == 487_500, "below the next step: raised by 30 %, past 1.5 × the traffic, for a probe to try it")
        estimator.receiverEstimate(bitsPerSecond: 450_000)
        estimator.receiverReport(fractionLost: 0, sentBitrate: 500_000)
        #expect(estimator.estimate == 450_000, "a REMB below what was sent (over-use) bounds it")
        estimator.receiverReport(fractionLost: 0, sentBitrate: 420_000)
        #expect(estimator.estimate == 585_000, "a REMB above what is sent bounds nothing: raised by 30 %")
    }

    @Test("reports during a probe do not raise the estimate: a passed probe buys the step it tried, not the one above")
    func probeBuysOneStep() {
        // Layers as close as the test pattern's: 150, 250 and 500 kbps.
        let track = StreamAllocator.Track(id: "v", layerBitrates: [150_000, 250_000, 500_000])
        var estimator = DownlinkEstimator()
        var allocator = StreamAllocator()
        estimator.receiverReport(fractionLost: 0.5, sentBitrate: 300_000)
        #expect(allocator.allocate(budget: estimator.estimate, tracks: [track], now: Self.at(0)) == ["v": 0])
        // Clean reports on the lowest layer raise the estimate to the next step, which a probe then tries.
        while estimator.estimate < allocator.nextStep {
            estimator.receiverReport(fractionLost: 0, sentBitrate: 160_000, wanted: allocator.nextStep)
        }
        let atProbe = estimator.estimate
        // The padding brings what is sent to 1.25 × the step; three clean reports while it runs and the one that judges it.
        for _ in 0..<4 {
            estimator.receiverReport(fractionLost: 0, sentBitrate: allocator.nextStep * 5 / 4, wanted: allocator.nextStep, probing: true)
        }
        #expect(estimator.estimate == atProbe, "not raised while the probe runs: its padding is no traffic the link was seen to carry yet")
        #expect(allocator.allocate(budget: estimator.estimate, tracks: [track], now: Self.at(5)) == ["v": 1])
    }

    @Test("a receive-side REMB that follows the traffic does not hold the subscriber below the next layer")
    func rembFollowingTraffic() {
        var estimator = DownlinkEstimator()
        estimator.receiverReport(fractionLost: 0.5, sentBitrate: 1_000_000)
        #expect(estimator.estimate == 500_000)
        // The middle layer flows at 400 kbps; Chromium's REMB stays near 1.5 × that, below the top layer's 1.5 Mbps.
        for _ in 0..<5 {
            estimator.receiverEstimate(bitsPerSecond: 600_000)
            estimator.receiverReport(fractionLost: 0, sentBitrate: 400_000, wanted: 1_800_000)
        }
        #expect(estimator.estimate >= 1_800_000, "clean reports raise it to the next step, for a probe to try")
        // On the top layer (1.5 Mbps) the REMB ramps up from the middle layer's, 8 % at a time.
        estimator.receiverEstimate(bitsPerSecond: 648_000)
        estimator.receiverReport(fractionLost: 0, sentBitrate: 1_500_000)
        #expect(estimator.estimate >= 1_800_000, "a REMB still rising behind the step bounds nothing")
        estimator.receiverEstimate(bitsPerSecond: 1_275_000)
        estimator.receiverReport(fractionLost: 0, sentBitrate: 1_500_000)
        #expect(estimator.estimate >= 1_800_000, "nor when it rises a lot")
        estimator.receiverEstimate(bitsPerSecond: 1_100_000)
        estimator.receiverReport(fractionLost: 0, sentBitrate: 1_500_000)
        #expect(estimator.estimate == 1_100_000, "the top layer over-uses the link: the REMB fell, and bounds it")
        estimator.receiverEstimate(bitsPerSecond: 1_080_000)
        estimator.receiverReport(fractionLost: 0, sentBitrate: 1_500_000)
        #expect(estimator.estimate == 1_080_000, "a REMB holding (within 5 %) after a fall still bounds it")
        estimator.receiverEstimate(bitsPerSecond: 1_150_000)
        estimator.receiverReport(fractionLost: 0, sentBitrate: 1_000_000)
        #expect(estimator.estimate == 1_404_000, "rising again, and above what is sent: raised by 30 %")
    }

    @Test("the budget buys the highest layers that fit, lowest tracks first; moving up needs a 20 % margin")
    func allocation() {
        var allocator = StreamAllocator()
        #expect(allocator.allocate(budget: 10_000_000, tracks: [Self.track("a"), Self.track("b")], now: Self.at(0)) == ["a": 2, "b": 2])
        var fresh = StreamAllocator()
        let two = fresh.allocate(budget: 1_300_000, tracks: [Self.track("a"), Self.track("b")], now: Self.at(0))
        #expect(two == ["a": 1, "b": 1], "both on the middle layer rather than one on top")
        var margin = StreamAllocator()
        #expect(margin.allocate(budget: 550_000, tracks: [Self.track()], now: Self.at(0)) == ["v": 0], "500 k × 1.2 does not fit in 550 k")
        #expect(margin.nextStep == 600_000, "what it would try next")
        #expect(margin.allocate(budget: 600_000, tracks: [Self.track()], now: Self.at(1)) == ["v": 1])
        #expect(margin.allocate(budget: 510_000, tracks: [Self.track()], now: Self.at(2)) == ["v": 1], "staying costs no margin")
        var below = StreamAllocator()
        #expect(below.allocate(budget: 50_000, tracks: [Self.track()], now: Self.at(0)) == ["v": 0], "never below the lowest layer")
        var ceiling = StreamAllocator()
        #expect(ceiling.allocate(budget: 10_000_000, tracks: [Self.track(preferred: 1)], now: Self.at(0)) == ["v": 1], "the subscription's ceiling holds")
        var gaps = StreamAllocator()
        let stopped = StreamAllocator.Track(id: "v", layerBitrates: [0, 500_000, 1_500_000])
        #expect(gaps.allocate(budget: 100_000, tracks: [stopped], now: Self.at(0)) == ["v": 1], "a layer that stopped is skipped")
    }

    @Test("a track pushed down waits out a back-off (2 s, then 4 s) before moving up again")
    func backoff() {
        var allocator = StreamAllocator()
        #expect(allocator.allocate(budget: 5_000_000, tracks: [Self.track()], now: Self.at(0)) == ["v": 2])
        #expect(allocator.allocate(budget: 300_000, tracks: [Self.track()], now: Self.at(1)) == ["v": 0])
        #expect(allocator.nextStepBlocked, "the push-down itself blocks the step back up: no probe of it on the next report")
        #expect(allocator.allocate(budget: 5_000_000, tracks: [Self.track()], now: Self.at(2)) == ["v": 0], "blocked until 3 s")
        #expect(allocator.nextStep == 600_000 && allocator.nextStepBlocked,
                "the step held back is known (so the budget can stay below it), but blocked: not to be tried yet")
        #expect(allocator.allocate(budget: 5_000_000, tracks: [Self.track()], now: Self.at(3)) == ["v": 2])
        #expect(allocator.allocate(budget: 300_000, tracks: [Self.track()], now: Self.at(4)) == ["v": 0])
        #expect(allocator.allocate(budget: 5_000_000, tracks: [Self.track()], now: Self.at(7)) == ["v": 0], "the second back-off is 4 s")
        #expect(allocator.allocate(budget: 5_000_000, tracks: [Self.track()], now: Self.at(8)) == ["v": 2])
    }

    @Test("while a step waits for its probe, no track moves up, even when the layer above measures a little cheaper")
    func upgradesHeldForTheProbe() {
        var allocator = StreamAllocator()
        #expect(allocator.allocate(budget: 700_000, tracks: [Self.track()], now: Self.at(0)) == ["v": 1])
        #expect(allocator.nextStep == 1_800_000, "1.5 M × 1.2 in place of the 500 k layer, beside nothing else")
        #expect(allocator.allocate(budget: 2_000_000, tracks: [Self.track()], now: Self.at(1), upgradesAllowed: false) == ["v": 1])
        #expect(allocator.nextStep == 1_800_000)
        // The top layer measured at 1.2 Mbps this second: its step (1.44 M) fits under the last
        // nextStep minus one, the budget the caller used to pass; it is still not taken.
        let cheaper = StreamAllocator.Track(id: "v", layerBitrates: [150_000, 500_000, 1_200_000])
        #expect(allocator.allocate(budget: 1_799_999, tracks: [cheaper], now: Self.at(2), upgradesAllowed: false) == ["v": 1])
        #expect(allocator.nextStep == 1_440_000)
        #expect(allocator.allocate(budget: 1_799_999, tracks: [cheaper], now: Self.at(3)) == ["v": 2], "taken once allowed")
        // Held upgrades do not move a track down either: the layer it is on stays.
        #expect(allocator.allocate(budget: 2_000_000, tracks: [cheaper], now: Self.at(4), upgradesAllowed: false) == ["v": 2])
        // A track allocated for the first time is placed where the budget allows: no move up.
        #expect(allocator.allocate(budget: 2_000_000, tracks: [cheaper, Self.track("new")], now: Self.at(5), upgradesAllowed: false)
                == ["v": 2, "new": 1])
    }

    @Test("a track whose steps change (temporal layers measured) keeps its layer by rank, not by index")
    func ranksSurviveNewSteps() {
        var allocator = StreamAllocator()
        let spatial = StreamAllocator.Track(id: "v", layerBitrates: [150_000, 500_000, 1_500_000], ranks: [3, 7, 11])
        #expect(allocator.allocate(budget: 5_000_000, tracks: [spatial], now: Self.at(0)) == ["v": 2])
        // The next second the producer measured L1T3: all temporal steps of the lowest layer, the top two above.
        let temporal = StreamAllocator.Track(id: "v", layerBitrates: [60_000, 90_000, 150_000, 300_000, 500_000, 900_000, 1_500_000],
                                             ranks: [0, 1, 3, 6, 7, 10, 11])
        #expect(allocator.allocate(budget: 5_000_000, tracks: [temporal], now: Self.at(1), upgradesAllowed: false) == ["v": 6],
                "index 2 was the top layer, now it is the lowest: by rank it still holds the top, and staying is no move up")
        #expect(allocator.allocate(budget: 400_000, tracks: [temporal], now: Self.at(2)) == ["v": 3])
        #expect(allocator.allocate(budget: 5_000_000, tracks: [spatial], now: Self.at(3)) == ["v": 0], "pushed down: its back-off holds")
    }

    @Test("the allocator's ceiling and the subscriber's preference: the lower one is aimed for")
    func selectorCeiling() {
        var selector = LayerSelector(preferred: 2)
        selector.ceiling = 1
        #expect(selector.wanted(flowing: [true, true, true]) == 1)
        selector.preferred = 0
        #expect(selector.wanted(flowing: [true, true, true]) == 0)
        selector.preferred = nil
        #expect(selector.wanted(flowing: [true, false, true]) == 0, "the ceiling's layer stopped: the closest below")
        selector.ceiling = nil
        #expect(selector.wanted(flowing: [true, true, true]) == 2)
    }
}

/// Loss over the estimator's own interval, from the report blocks' cumulative counters.
struct ReportedLossTests {
    static func block(_ ssrc: UInt32, lost: Int32, highest: UInt32, fraction: UInt8 = 0) -> RTCPReceptionReport {
        RTCPReceptionReport(ssrc: ssrc, fractionLost: fraction, cumulativeLost: lost, extendedHighestSequenceNumber: highest)
    }

    @Test("the first report is a baseline; later ones give lost / expected since the previous call, over all streams")
    func interval() {
        var loss = ReportedLoss()
        #expect(loss.fraction([Self.block(1, lost: 5, highest: 1_000)]) == nil)
        #expect(loss.fraction([Self.block(1, lost: 45, highest: 1_100), Self.block(2, lost: 0, highest: 70)]) == 0.4)
        #expect(loss.fraction([Self.block(1, lost: 45, highest: 1_150), Self.block(2, lost: 10, highest: 120)]) == 0.1,
                "10 lost of 100 expected over both streams")
    }

    @Test("reports in between do not shorten the interval: only the calls count")
    func manyReports() {
        var loss = ReportedLoss()
        _ = loss.fraction([Self.block(7, lost: 0, highest: 65_530)])
        // A receiver that sent ten reports meanwhile (each with a small fraction lost) is judged on the whole interval.
        #expect(loss.fraction([Self.block(7, lost: 30, highest: 65_630, fraction: 3)]) == 0.3, "across the 16-bit wrap: 100 expected")
    }

    @Test("numbers never sent (lost before the server) are neither expected nor lost, per stream, up to each block's highest")
    func unsentLeftOut() {
        var loss = ReportedLoss()
        // Stream 1 had 20 numbers never sent by the first report, 60 by the second; stream 2 none.
        var unsent: [UInt32: Int] = [1: 20]
        _ = loss.fraction([Self.block(1, lost: 20, highest: 1_000), Self.block(2, lost: 0, highest: 50)], unsent: { ssrc, highest in
            #expect(highest == (ssrc == 1 ? 1_000 : 50))
            return unsent[ssrc] ?? 0
        })
        unsent[1] = 60
        // 200 expected on stream 1, 40 of them never sent: 160 sent, 45 lost of which 40 never sent. 100 sent on stream 2, 5 lost.
        let fraction = loss.fraction([Self.block(1, lost: 65, highest: 1_200), Self.block(2, lost: 5, highest: 150)]) { ssrc, _ in unsent[ssrc] ?? 0 }
        #expect(fraction == 10.0 / 260)
        // All of an interval's loss upstream: none on the link.
        unsent[1] = 100
        #expect(loss.fraction([Self.block(1, lost: 105, highest: 1_300)]) { ssrc, _ in unsent[ssrc] ?? 0 } == 0)
    }

    @Test("nothing expected, duplicates counted back, and a stream that is gone", arguments: [
        (Int32(10), UInt32(100), nil as Double?), (Int32(5), UInt32(110), 0.0), (Int32(40), UInt32(120), 1.0),
    ])
    func edges(lost: Int32, highest: UInt32, fraction: Double?) {
        var loss = ReportedLoss()
        _ = loss.fraction([Self.block(3, lost: 10, highest: 100)])
        #expect(loss.fraction([Self.block(3, lost: lost, highest: highest)]) == fraction)
    }
}
