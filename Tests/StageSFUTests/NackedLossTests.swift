@testable import StageSFU
import Testing

/// `NackedLoss`: each NACKed sequence number counts once (RFC 4585 §6.2.1 generic NACK).
@Suite struct NackedLossTests {
    @Test("aiortc re-lists every hole with each new one: the old holes are not counted again")
    func relistedHoles() {
        var loss = NackedLoss()
        loss.nacked(ssrc: 1, sequences: [10, 11])
        loss.nacked(ssrc: 1, sequences: [10, 11, 20])
        loss.nacked(ssrc: 1, sequences: [10, 11, 20, 31, 32])
        #expect(loss.take() == 5)
        loss.nacked(ssrc: 1, sequences: [10, 11, 20, 31, 32])
        #expect(loss.take() == 0)
    }

    @Test("Chromium asks again per round trip: one packet, one count; streams counted apart")
    func retriesAndStreams() {
        var loss = NackedLoss()
        for _ in 0..<4 { loss.nacked(ssrc: 1, sequences: [500]) }
        loss.nacked(ssrc: 2, sequences: [500])
        #expect(loss.take() == 2)
    }

    @Test("RFC 1982: counting continues across the 16-bit wrap")
    func wrap() {
        var loss = NackedLoss()
        loss.nacked(ssrc: 7, sequences: [65534, 65535])
        loss.nacked(ssrc: 7, sequences: [65535, 0, 1])
        #expect(loss.take() == 4)
    }

    @Test("A forgotten stream starts over")
    func keepOnly() {
        var loss = NackedLoss()
        loss.nacked(ssrc: 1, sequences: [5])
        loss.nacked(ssrc: 2, sequences: [5])
        loss.keep(only: [2])
        _ = loss.take()
        loss.nacked(ssrc: 1, sequences: [5])
        loss.nacked(ssrc: 2, sequences: [5])
        #expect(loss.take() == 1)
    }
}
