import Testing
@testable import StageSFU

/// RFC 3550 §5.1 header rewriting across a change of source.
struct RTPMungerTests {
    static func packet(ssrc: UInt32, sequence: UInt16, timestamp: UInt32, payloadType: UInt8 = 96, marker: Bool = false) -> [UInt8] {
        [0x80, (marker ? 0x80 : 0) | payloadType, UInt8(sequence >> 8), UInt8(sequence & 0xFF),
         UInt8(timestamp >> 24), UInt8(timestamp >> 16 & 0xFF), UInt8(timestamp >> 8 & 0xFF), UInt8(timestamp & 0xFF),
         UInt8(ssrc >> 24), UInt8(ssrc >> 16 & 0xFF), UInt8(ssrc >> 8 & 0xFF), UInt8(ssrc & 0xFF), 0xAA]
    }

    static let start = ContinuousClock.now

    func rewrite(_ munger: inout RTPMunger, _ bytes: [UInt8], atMillisecond ms: Int = 0) -> (ssrc: UInt32, sequence: UInt16, timestamp: UInt32, pt: UInt8, marker: Bool) {
        var copy = bytes
        copy.withUnsafeMutableBytes { munger.rewrite($0, source: RTPFixedFields(UnsafeRawBufferPointer($0)), now: PacketTime(Self.start + .milliseconds(ms))) }
        return copy.withUnsafeMutableBytes { p in
            (RTPFixedFields(UnsafeRawBufferPointer(p)).ssrc, RTPFixedFields(UnsafeRawBufferPointer(p)).sequenceNumber,
             RTPFixedFields(UnsafeRawBufferPointer(p)).timestamp, p[1] & 0x7F, p[1] & 0x80 != 0)
        }
    }

    @Test("the SSRC and payload type become the consumer's; the marker bit is kept")
    func rewritesIdentity() {
        var munger = RTPMunger(outgoingSSRC: 0xCAFE, payloadType: 100)
        let out = rewrite(&munger, Self.packet(ssrc: 1, sequence: 10, timestamp: 1000, marker: true))
        #expect(out.ssrc == 0xCAFE && out.pt == 100 && out.marker)
        #expect(out.sequence == 10 && out.timestamp == 1000)
    }

    @Test("a switch of source continues the sequence without a gap and the timestamp by the time elapsed")
    func switchKeepsContinuity() {
        var munger = RTPMunger(outgoingSSRC: 7, payloadType: 96)
        _ = rewrite(&munger, Self.packet(ssrc: 1, sequence: 100, timestamp: 9000), atMillisecond: 0)
        _ = rewrite(&munger, Self.packet(ssrc: 1, sequence: 101, timestamp: 12000), atMillisecond: 33)
        // The other layer's timestamps have an unrelated base; 40 ms later → 40 × 90 ticks on.
        let switched = rewrite(&munger, Self.packet(ssrc: 2, sequence: 5000, timestamp: 500), atMillisecond: 73)
        #expect(switched.sequence == 102)
        #expect(switched.timestamp == 12000 + 40 * 90)
        let next = rewrite(&munger, Self.packet(ssrc: 2, sequence: 5001, timestamp: 3500), atMillisecond: 106)
        #expect(next.sequence == 103 && next.timestamp == 12000 + 40 * 90 + 3000)
    }

    @Test("sequence numbers wrap around 65535 (RFC 1982 serial arithmetic)")
    func wraps() {
        var munger = RTPMunger(outgoingSSRC: 7, payloadType: 96)
        _ = rewrite(&munger, Self.packet(ssrc: 1, sequence: 65535, timestamp: 0))
        #expect(rewrite(&munger, Self.packet(ssrc: 1, sequence: 0, timestamp: 3000)).sequence == 0)
        #expect(RTPMunger.isNewer(0, than: 65535))
        #expect(!RTPMunger.isNewer(65535, than: 0))
    }

    @Test("a sent sequence number maps back to its source and original number across the last `rememberedEpochs` switches, and no further")
    func originAcrossSwitches() {
        var munger = RTPMunger(outgoingSSRC: 7, payloadType: 96)
        #expect(munger.origin(ofOutgoing: 0) == nil, "nothing sent yet")
        var sent: [(outgoing: UInt16, source: UInt32, sequence: UInt16)] = []
        for source in UInt32(1)...UInt32(RTPMunger.rememberedEpochs + 1) {
            for sequence in UInt16(1000 * source)..<UInt16(1000 * source + 3) {
                let out = rewrite(&munger, Self.packet(ssrc: source, sequence: sequence, timestamp: 0), atMillisecond: Int(source) * 100)
                sent.append((out.sequence, source, sequence))
            }
        }
        for (outgoing, source, sequence) in sent {
            let origin = munger.origin(ofOutgoing: outgoing)
            if source == 1 {
                #expect(origin == nil, "one switch more forgot the first source")
            } else {
                #expect(origin?.source == source && origin?.sequenceNumber == sequence)
            }
        }
        #expect(munger.origin(ofOutgoing: sent.last!.outgoing &+ 1) == nil, "not sent yet")
    }

    @Test("after a resync the same source continues the outgoing sequence without a gap; timestamps stay the source's")
    func resyncClosesTheGap() {
        var munger = RTPMunger(outgoingSSRC: 7, payloadType: 111)
        _ = rewrite(&munger, Self.packet(ssrc: 1, sequence: 100, timestamp: 960))
        munger.resync()
        let resumed = rewrite(&munger, Self.packet(ssrc: 1, sequence: 250, timestamp: 144_960), atMillisecond: 3000)
        #expect(resumed.sequence == 101 && resumed.timestamp == 144_960)
        #expect(munger.origin(ofOutgoing: 101)?.sequenceNumber == 250 && munger.origin(ofOutgoing: 100)?.sequenceNumber == 100)
        let next = rewrite(&munger, Self.packet(ssrc: 1, sequence: 251, timestamp: 145_920), atMillisecond: 3020)
        #expect(next.sequence == 102, "one resync, not one per packet")
    }
}
