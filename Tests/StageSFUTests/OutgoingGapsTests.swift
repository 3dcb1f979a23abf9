import StageWire
import Testing
@testable import StageSFU

/// Numbers a consumer left unsent where the publisher's uplink lost packets, and how the
/// munger keeps them apart from the packets it drops on purpose.
struct OutgoingGapsTests {
    @Test("a gap is counted until its packet fills it; a filled gap is still known as one; a report's highest number bounds the count")
    func counts() {
        var gaps = OutgoingGaps()
        gaps.opened(first: 65534, count: 3)
        gaps.opened(first: 10, count: 1)
        #expect(gaps.unfilled == 4)
        #expect(gaps.unfilled(notNewerThan: 0) == 3, "65534, 65535 and 0 are at or before 0 (RFC 1982)")
        #expect(gaps.unfilled(notNewerThan: 9) == 3)
        #expect(gaps.unfilled(notNewerThan: 10) == 4)
        let fills = [gaps.fill(65535), gaps.fill(65535), gaps.fill(1)]
        #expect(fills == [true, false, false], "filled once; 1 was never a gap")
        #expect(gaps.unfilled == 3)
        #expect(gaps.contains(65535) && gaps.contains(10) && !gaps.contains(1))
    }

    @Test("bounded: the oldest gaps are forgotten but stay counted")
    func bounded() {
        var gaps = OutgoingGaps()
        gaps.opened(first: 0, count: OutgoingGaps.capacity + 10)
        #expect(gaps.unfilled == OutgoingGaps.capacity + 10)
        #expect(!gaps.contains(9) && gaps.contains(10) && gaps.contains(UInt16(OutgoingGaps.capacity + 9)))
        let forgotten = gaps.fill(0)
        #expect(!forgotten)
    }

    static func fields(_ sequence: UInt16, ssrc: UInt32 = 1) -> RTPFixedFields {
        RTPFixedFields.peek(RTPMungerTests.packet(ssrc: ssrc, sequence: sequence, timestamp: UInt32(sequence) * 100))
    }

    static func forward(_ munger: inout RTPMunger, _ sequence: UInt16) -> UInt16 {
        var bytes = RTPMungerTests.packet(ssrc: 1, sequence: sequence, timestamp: UInt32(sequence) * 100)
        bytes.withUnsafeMutableBytes { munger.rewrite($0, source: RTPFixedFields(UnsafeRawBufferPointer($0))) }
        return RTPFixedFields.peek(bytes).sequenceNumber
    }

    @Test("the source's gap stays a gap; its late packet goes out as that number, once")
    func lateFillsItsGap() throws {
        var munger = RTPMunger(outgoingSSRC: 7, payloadType: 96)
        #expect(Self.forward(&munger, 100) == 100)
        #expect(Self.forward(&munger, 103) == 103)
        #expect(munger.gaps.unfilled == 2 && munger.gaps.contains(101) && munger.gaps.contains(102))
        #expect(munger.isLate(Self.fields(102)) && munger.isLate(Self.fields(103)) && !munger.isLate(Self.fields(104)))
        let filled = munger.fillGap(with: Self.fields(102))
        let late = try #require(filled)
        #expect(late.outgoing == 102 && late.origin.sequenceNumber == 102)
        let again = munger.fillGap(with: Self.fields(102))
        #expect(again == nil, "sent already")
        let notAGap = munger.fillGap(with: Self.fields(100))
        #expect(notAGap == nil, "never a gap")
        #expect(munger.gaps.unfilled == 1)
    }

    @Test("a dropped packet takes no number; a gap before it stays one, and its late packet finds it across later drops")
    func dropsKeepUpstreamGaps() throws {
        var munger = RTPMunger(outgoingSSRC: 7, payloadType: 96)
        #expect(Self.forward(&munger, 100) == 100)
        // 101 (the end of the forwarded frame) never arrived; 102 and 103 are a skipped frame's.
        munger.drop(Self.fields(102))
        munger.drop(Self.fields(103))
        #expect(Self.forward(&munger, 104) == 102)
        #expect(munger.gaps.unfilled == 1 && munger.gaps.contains(101))
        // Another skipped frame (106), whose 105 was lost too: a gap the subscriber sees, at 103.
        munger.drop(Self.fields(106))
        #expect(Self.forward(&munger, 107) == 104)
        #expect(munger.gaps.contains(103))
        let endFilled = munger.fillGap(with: Self.fields(101))
        let end = try #require(endFilled)
        #expect(end.outgoing == 101)
        let skippedFilled = munger.fillGap(with: Self.fields(105))
        let skipped = try #require(skippedFilled)
        #expect(skipped.outgoing == 103)
        let dropped = munger.fillGap(with: Self.fields(103))
        #expect(dropped == nil, "a dropped packet again: its run took no number")
        #expect(munger.gaps.unfilled == 0)
        // NACKs map back through the same runs.
        #expect(munger.origin(ofOutgoing: 101)?.sequenceNumber == 101)
        #expect(munger.origin(ofOutgoing: 102)?.sequenceNumber == 104)
        #expect(munger.origin(ofOutgoing: 103)?.sequenceNumber == 105)
        #expect(munger.origin(ofOutgoing: 104)?.sequenceNumber == 107)
    }
}
