import Testing
@testable import StageHLS

/// A producer cutting 2 s segments into six parts of 1/3 s.
struct PartFeeder {
    var rendition = HLSLiveRendition(windowSegments: 3)
    var index = 0
    var clock: Int64 = 1_700_000_000_000

    mutating func start(initBytes: [UInt8] = [0x69]) {
        rendition.setInitSection(initBytes)
        index = 0
    }

    mutating func feed(_ count: Int) {
        for _ in 0..<count {
            let first = index % 6 == 0
            rendition.append(HLSChunk(kind: .part, rendition: 0, duration: 1.0 / 3, independent: first, startsSegment: first,
                                      endsSegment: index % 6 == 5, programDateMillis: clock, bytes: [UInt8(index % 256)]))
            clock += 333
            index += 1
        }
    }
}

@Suite struct HLSLiveRenditionTests {
    @Test func cutsSegmentsAndSlidesTheWindow() {
        var feeder = PartFeeder()
        feeder.start()
        feeder.feed(2)
        #expect(feeder.rendition.lastPosition == .init(sequence: 0, part: 1))
        #expect(feeder.rendition.nextPosition == .init(sequence: 0, part: 2))
        feeder.feed(4)
        // The sixth part ends segment 0: it is complete at once, the next part opens segment 1.
        #expect(feeder.rendition.segment(0)?.isComplete == true)
        #expect(feeder.rendition.nextPosition == .init(sequence: 1, part: 0))
        feeder.feed(6 * 4 + 1)
        #expect(feeder.rendition.completeSegments.count == 3)
        #expect(feeder.rendition.mediaSequence == 2)
        #expect(feeder.rendition.segment(1) == nil)
        #expect(feeder.rendition.segment(5)?.parts.count == 1)
        #expect(feeder.rendition.segment(2)?.bytes == (12..<18).map { UInt8($0) })
    }

    @Test func aRestartIsADiscontinuityAndSequenceNumbersGoOn() {
        var feeder = PartFeeder()
        feeder.start()
        feeder.feed(8)
        feeder.start(initBytes: [0x70])
        feeder.feed(6)
        let segments = feeder.rendition.segments
        #expect(segments.map(\.sequence) == [0, 1, 2])
        #expect(segments[1].isComplete && segments[1].parts.count == 2)
        #expect(segments[2].discontinuity && segments[2].initGeneration == 2)
        feeder.feed(6 * 4)
        #expect(feeder.rendition.discontinuitySequence == 1)
        #expect(feeder.rendition.initSections.keys.sorted() == [2])
    }

    @Test func blockingDecisions() {
        var feeder = PartFeeder()
        feeder.start()
        feeder.feed(8)
        let rendition = feeder.rendition
        #expect(rendition.satisfies(sequence: 0, part: nil))
        #expect(rendition.satisfies(sequence: 1, part: 1))
        #expect(!rendition.satisfies(sequence: 1, part: 2))
        #expect(!rendition.satisfies(sequence: 1, part: nil))
        #expect(!rendition.satisfies(sequence: 2, part: 0))
    }
}
