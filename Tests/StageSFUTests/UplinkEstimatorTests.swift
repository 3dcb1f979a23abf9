import StageSFU
import Testing

/// `UplinkEstimator`: GCC's loss-based rule (draft-ietf-rmcat-gcc-02 §6) on the receiving side.
@Suite struct UplinkEstimatorTests {
    @Test("A clean link keeps the ceiling every publisher had before")
    func clean() {
        var uplink = UplinkEstimator()
        for _ in 0..<10 { uplink.update(receivedBitrate: 700_000, fractionLost: 0) }
        #expect(uplink.estimate == UplinkEstimator.maximum)
    }

    @Test("A full link (over 10 % lost) cuts to 0.85 × what arrived, never below the minimum")
    func cut() {
        var uplink = UplinkEstimator()
        uplink.update(receivedBitrate: 300_000, fractionLost: 0.57)
        #expect(uplink.estimate == 255_000)
        uplink.update(receivedBitrate: 50_000, fractionLost: 0.9)
        #expect(uplink.estimate == UplinkEstimator.minimum)
    }

    @Test("Between 2 and 10 % lost: unchanged; under 2 %: up by the factor while the traffic uses half of it")
    func holdAndRise() {
        var uplink = UplinkEstimator()
        uplink.update(receivedBitrate: 400_000, fractionLost: 0.5)
        let cut = uplink.estimate
        uplink.update(receivedBitrate: 300_000, fractionLost: 0.05)
        #expect(uplink.estimate == cut)
        uplink.update(receivedBitrate: 300_000, fractionLost: 0)
        #expect(uplink.estimate == Int((Double(cut) * UplinkEstimator.increaseFactor).rounded()))
        let risen = uplink.estimate
        uplink.update(receivedBitrate: risen / 2 - 1, fractionLost: 0)
        #expect(uplink.estimate == risen, "traffic far below the estimate says nothing about the link")
    }

    @Test("Back on a wide link the estimate reaches 2.5 Mbps within 20 s of a 255 kbps spell")
    func recovery() {
        var uplink = UplinkEstimator()
        uplink.update(receivedBitrate: 300_000, fractionLost: 0.57)
        var seconds = 0
        while uplink.estimate < 2_500_000 && seconds < 60 {
            uplink.update(receivedBitrate: uplink.estimate * 9 / 10, fractionLost: 0)  // the sender follows the estimate
            seconds += 1
        }
        #expect(seconds <= 20, "took \(seconds) s")
    }
}
