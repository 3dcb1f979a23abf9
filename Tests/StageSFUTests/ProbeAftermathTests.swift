import StageSFU
import Testing

/// What a probe leaves behind: a passed one raises the estimate to what it carried; the loss and
/// over-use of a failed one cut no lower than what the media alone was sent at before it, and
/// the allocator keeps the layers it held.
@Suite struct ProbeAftermathTests {
    static let start = ContinuousClock.now

    @Test("a passed probe raises the estimate to what it carried, and never lowers it")
    func passedProbe() {
        var estimator = DownlinkEstimator()
        estimator.receiverReport(fractionLost: 0.5, sentBitrate: 400_000)
        #expect(estimator.estimate == 200_000)
        estimator.probePassed(testedBitrate: 310_000)
        #expect(estimator.estimate == 310_000, "the step it tried fits, though it measured above the estimate that started it")
        estimator.probePassed(testedBitrate: 250_000)
        #expect(estimator.estimate == 310_000)
        estimator.probePassed(testedBitrate: 50_000_000)
        #expect(estimator.estimate == DownlinkEstimator.maximum)
    }

    @Test("an over-use during a probe cuts no lower than the media's rate before it, and raises nothing")
    func overuseFloor() {
        var estimator = DownlinkEstimator()
        estimator.receiverReport(fractionLost: 0.5, sentBitrate: 800_000)
        #expect(estimator.estimate == 400_000)
        let cut = estimator.delayOverused(ackedBitrate: 260_000, carried: 240_000)
        #expect(cut && estimator.estimate == 240_000, "0.85 × 260 k is 221 k: held at the 240 k the media was carried at")
        let again = estimator.delayOverused(ackedBitrate: 100_000, carried: 240_000)
        #expect(!again && estimator.estimate == 240_000)
        let above = estimator.delayOverused(ackedBitrate: 100_000, carried: 300_000)
        #expect(!above && estimator.estimate == 240_000, "a floor above the estimate does not raise it")
        let plain = estimator.delayOverused(ackedBitrate: 200_000)
        #expect(plain && estimator.estimate == 170_000, "without a probe: GCC's 0.85 × what arrived")
    }

    @Test("a report's loss after a failed probe cuts no lower than the media's rate before it")
    func lossFloor() {
        var estimator = DownlinkEstimator()
        estimator.receiverReport(fractionLost: 0.5, sentBitrate: 800_000)
        #expect(estimator.estimate == 400_000)
        estimator.receiverReport(fractionLost: 0.3, sentBitrate: 300_000, carried: 240_000)
        #expect(estimator.estimate == 240_000, "210 k got through; the media alone was carried at 240 k before the probe")
        estimator.receiverReport(fractionLost: 0.3, sentBitrate: 300_000)
        #expect(estimator.estimate == 204_000, "without a probe before it: the lower of 0.85 × the estimate and what got through")
        estimator.receiverReport(fractionLost: 0.3, sentBitrate: 300_000, carried: 260_000)
        #expect(estimator.estimate == 204_000, "under a floor above it, the estimate is neither raised nor cut")
    }

    @Test("after a failed probe, no track goes below the layer it holds, if that layer still flows")
    func keepsHeldLayers() {
        let track = StreamAllocator.Track(id: "v", layerBitrates: [150_000, 250_000, 500_000])
        var allocator = StreamAllocator()
        #expect(allocator.allocate(budget: 300_000, tracks: [track], now: Self.start) == ["v": 1])
        #expect(allocator.allocate(budget: 200_000, tracks: [track], now: Self.start + .seconds(1), keepingHeldLayers: true) == ["v": 1])
        #expect(allocator.allocate(budget: 10_000_000, tracks: [track], now: Self.start + .seconds(2), upgradesAllowed: false,
                                   keepingHeldLayers: true) == ["v": 1], "nor above it without a probe")
        let stopped = StreamAllocator.Track(id: "v", layerBitrates: [150_000, 0, 500_000])
        #expect(allocator.allocate(budget: 200_000, tracks: [stopped], now: Self.start + .seconds(3), keepingHeldLayers: true) == ["v": 0],
                "the held layer stopped flowing: the lowest that flows")
        #expect(allocator.allocate(budget: 200_000, tracks: [track], now: Self.start + .seconds(4)) == ["v": 0], "otherwise the budget rules")
    }
}
