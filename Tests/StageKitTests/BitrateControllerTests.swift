import StageKit
import Testing

@Suite struct BitrateControllerTests {
    @Test func troubleBacksOffByAQuarterAtMostTwiceASecond() {
        var controller = BitrateController(minBitrate: 100_000, maxBitrate: 1_000_000)
        controller.trouble(nowMicros: 1_000_000)
        #expect(controller.target == 750_000)
        controller.trouble(nowMicros: 1_200_000)
        #expect(controller.target == 750_000, "a second report of the same trouble is ignored")
        controller.trouble(nowMicros: 1_600_000)
        #expect(controller.target == 562_500)
    }

    @Test func recoversByFifteenPercentASecondAfterAStablePeriodUpToMax() {
        var controller = BitrateController(minBitrate: 100_000, maxBitrate: 1_000_000, start: 500_000, nowMicros: 0)
        controller.tick(nowMicros: 2_000_000)
        #expect(controller.target == 500_000, "not yet stable")
        controller.tick(nowMicros: 3_000_000)
        #expect(controller.target == 575_000)
        controller.tick(nowMicros: 3_900_000)
        #expect(controller.target == 575_000, "one step per growth interval")
        controller.tick(nowMicros: 4_000_000)
        #expect(controller.target == 661_250)
        var now: UInt64 = 4_000_000
        for _ in 0..<3 {
            now += 1_000_000
            controller.tick(nowMicros: now)
        }
        #expect(controller.target == 1_000_000, "500 kbps to 1 Mbps in 7 s (was 15 s)")
    }

    @Test func afterTroubleItHoldsAStablePeriodBeforeGrowingAgain() {
        var controller = BitrateController(minBitrate: 100_000, maxBitrate: 1_000_000, start: 400_000, nowMicros: 0)
        controller.tick(nowMicros: 3_000_000)
        #expect(controller.target == 460_000)
        controller.trouble(nowMicros: 3_500_000)
        #expect(controller.target == 345_000)
        for now: UInt64 in [4_500_000, 5_500_000, 6_400_000] {
            controller.tick(nowMicros: now)
            #expect(controller.target == 345_000, "held")
        }
        controller.tick(nowMicros: 6_500_000)
        #expect(controller.target == 396_750)
    }

    @Test func troubleAtTheMinimumStillHolds() {
        var controller = BitrateController(minBitrate: 300_000, maxBitrate: 1_000_000, start: 300_000, nowMicros: 0)
        controller.trouble(nowMicros: 10_000_000)
        controller.tick(nowMicros: 12_000_000)
        #expect(controller.target == 300_000, "held 3 s after the trouble, though the target could not go lower")
        controller.tick(nowMicros: 13_000_000)
        #expect(controller.target == 345_000)
    }

    @Test func neverBelowMinimum() {
        var controller = BitrateController(minBitrate: 300_000, maxBitrate: 1_000_000)
        for step in 0..<20 { controller.trouble(nowMicros: UInt64(step) * 1_000_000) }
        #expect(controller.target == 300_000)
    }

    @Test func receiverEstimateCapsTheTarget() {
        var controller = BitrateController(minBitrate: 100_000, maxBitrate: 2_000_000)
        controller.receiverEstimate(800_000, nowMicros: 0)
        #expect(controller.target == 800_000)
        controller.tick(nowMicros: 10_000_000)
        #expect(controller.target == 800_000, "growth stops at the estimate")
        controller.receiverEstimate(6_000_000, nowMicros: 11_000_000)
        #expect(controller.target == 920_000, "a higher estimate lets the stable path grow again")
        controller.tick(nowMicros: 11_500_000)
        #expect(controller.target == 920_000, "one step per growth interval")
        controller.receiverEstimate(700_000, nowMicros: 12_000_000)
        #expect(controller.target == 700_000, "an estimate below the target cuts it")
        controller.receiverEstimate(6_000_000, nowMicros: 14_000_000)
        #expect(controller.target == 700_000, "and holds it a stable period")
        controller.receiverEstimate(6_000_000, nowMicros: 15_000_000)
        #expect(controller.target == 805_000)
    }

    @Test func lossOverTheThresholdIsTrouble() {
        var controller = BitrateController(minBitrate: 100_000, maxBitrate: 1_000_000)
        controller.reportedLoss(0.02, nowMicros: 1_000_000)
        #expect(controller.target == 1_000_000)
        controller.reportedLoss(0.10, nowMicros: 2_000_000)
        #expect(controller.target == 750_000)
    }

    @Test func aDelayOveruseCutsToItsShareOfWhatArrivedAndHolds() {
        var controller = BitrateController(minBitrate: 100_000, maxBitrate: 2_500_000, start: 2_000_000, nowMicros: 0)
        controller.delayOverused(ackedBitsPerSecond: 400_000, nowMicros: 5_000_000)
        #expect(controller.target == 340_000, "0.85 × what arrived")
        controller.delayOverused(ackedBitsPerSecond: 1_000_000, nowMicros: 5_200_000)
        #expect(controller.target == 340_000, "never up")
        controller.tick(nowMicros: 8_000_000)
        #expect(controller.target == 340_000, "held a stable period from the last over-use")
        controller.tick(nowMicros: 8_200_000)
        #expect(controller.target == 391_000)
        controller.delayOverused(ackedBitsPerSecond: 50_000, nowMicros: 9_000_000)
        #expect(controller.target == 100_000, "never under the minimum")
    }
}
