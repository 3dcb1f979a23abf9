import StageSFU
import StageWire
import Testing

/// `DownlinkEstimator.delayOverused`: the estimate at a delay-based over-use (draft-ietf-rmcat-gcc-02 §5.5).
@Suite struct DelayBasedEstimateTests {
    @Test("Over-use cuts the estimate to 0.85 × what arrived, never up and never under the minimum; no increase while not steady")
    func estimatorFollowsTheDelay() {
        var estimator = DownlinkEstimator()
        let cut = estimator.delayOverused(ackedBitrate: 300_000)
        #expect(cut && estimator.estimate == 255_000)
        let raised = estimator.delayOverused(ackedBitrate: 2_000_000)
        #expect(!raised)
        #expect(estimator.estimate == 255_000)
        estimator.receiverReport(fractionLost: 0, sentBitrate: 250_000, delay: .changing)
        #expect(estimator.estimate == 255_000)
        estimator.receiverReport(fractionLost: 0, sentBitrate: 250_000)
        #expect(estimator.estimate > 255_000)
        let floored = estimator.delayOverused(ackedBitrate: 10_000)
        #expect(floored && estimator.estimate == DownlinkEstimator.minimum)
    }

    @Test("The loss of the report after a delay cut is that over-use's: it cuts nothing more; the one after does")
    func lossAfterADelayCut() {
        var estimator = DownlinkEstimator()
        estimator.delayOverused(ackedBitrate: 400_000)
        estimator.receiverReport(fractionLost: 0.6, sentBitrate: 1_000_000, delay: .changing)
        #expect(estimator.estimate == 340_000)
        estimator.receiverReport(fractionLost: 0.6, sentBitrate: 400_000, delay: .changing)
        #expect(estimator.estimate == 160_000)
    }
}

/// `DownlinkEstimator.receiverReport` on a lossy link that is not full.
@Suite struct RandomLossEstimateTests {
    @Test("10–20 % lost with a steady delay: down by half the loss only; more, or with the delay not steady or not measured, down to what got through",
          arguments: [(0.12, .steady, 18_800_000), (0.25, .steady, 262_500), (0.12, .changing, 308_000), (0.12, .unmeasured, 308_000)]
            as [(Double, DownlinkEstimator.DelayTrend, Int)])
    func cut(loss: Double, delay: DownlinkEstimator.DelayTrend, expected: Int) {
        var estimator = DownlinkEstimator()
        estimator.receiverReport(fractionLost: loss, sentBitrate: 350_000, delay: delay)
        #expect(estimator.estimate == expected)
    }
}

/// A probe judged by what transport-cc feedback says of its own packets, padding included.
struct ProbeArrivalsTests {
    @Test("only packets numbered from the probe's start count, across the wrap; the loss needs 20 reported packets")
    func countsTheProbesPackets() {
        var arrivals = ProbeArrivals(firstSequence: 65_530)
        arrivals.record(sequence: 65_529, arrived: false)
        arrivals.record(sequence: 60_000, arrived: false)
        #expect(arrivals.lost == 0, "sent before the probe")
        for offset in 0..<19 { arrivals.record(sequence: 65_530 &+ UInt16(offset), arrived: true) }
        #expect(arrivals.received == 19)
        #expect(arrivals.loss == nil, "19 reported: too few to say")
        arrivals.record(sequence: 12, arrived: true)
        #expect(arrivals.loss == 0)
    }

    @Test("fails now at three lost and 2 % of what was reported, not before")
    func failsNow() {
        var arrivals = ProbeArrivals(firstSequence: 100)
        for sequence in UInt16(100)..<240 { arrivals.record(sequence: sequence, arrived: true) }
        arrivals.record(sequence: 240, arrived: false)
        arrivals.record(sequence: 241, arrived: false)
        #expect(!arrivals.failsNow, "two lost")
        arrivals.record(sequence: 242, arrived: false)
        #expect(arrivals.failsNow, "3 of 143: 2.1 %")
        var spread = ProbeArrivals(firstSequence: 0)
        for sequence in UInt16(0)..<200 { spread.record(sequence: sequence, arrived: sequence % 100 != 0) }
        spread.record(sequence: 200, arrived: false)
        #expect(!spread.failsNow, "3 of 201: 1.5 %, a link that loses now and then")
    }
}
