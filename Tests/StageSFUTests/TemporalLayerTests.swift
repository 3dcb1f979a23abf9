import StageWire
import Testing
@testable import StageSFU

/// VP8 temporal layers (RFC 7741 §4.2) as the finer step below a simulcast switch: which frames
/// a consumer forwards, what the subscriber sees of the ones it does not, and the steps offered.
struct TemporalLayerTests {
    /// The SDK's L1T3 pattern: TIDs 0 2 1 2, Y on the first TL2 and on TL1.
    static let pattern: [TemporalLayerFilter.Mark] = [.init(layer: 0, sync: false), .init(layer: 2, sync: true),
                                                      .init(layer: 1, sync: true), .init(layer: 2, sync: false)]

    /// Runs `frames` frames (one packet each) of the pattern through `filter`; returns the TIDs forwarded.
    static func run(_ filter: inout TemporalLayerFilter, frames: Range<Int>, switchedAt: Int? = nil) -> [UInt8] {
        frames.compactMap { index in
            let mark = pattern[index % 4]
            return filter.accept(mark, timestamp: UInt32(index) * 3000, switched: index == switchedAt) ? mark.layer : nil
        }
    }

    @Test("down at the next frame; up only at a frame of the higher layer with Y; to the ceiling at a spatial switch")
    func filterSwitches() {
        var filter = TemporalLayerFilter()
        #expect(Self.run(&filter, frames: 0..<4) == [0, 2, 1, 2], "no ceiling: everything")
        filter.ceiling = 0
        #expect(Self.run(&filter, frames: 4..<8) == [0])
        filter.ceiling = 1
        // Frame 9 (TL2, Y) is above the ceiling; frame 10 (TL1, Y) is the way up.
        #expect(Self.run(&filter, frames: 8..<16) == [0, 1, 0, 1])
        filter.ceiling = nil
        // Frame 16 is TL0, 17 TL2 with Y: up; 19 is TL2 without Y, but 17 was the sync.
        #expect(Self.run(&filter, frames: 16..<20) == [0, 2, 1, 2])
        filter.ceiling = 0
        _ = Self.run(&filter, frames: 20..<21)
        filter.ceiling = nil
        // Frame 22 (TL1, Y) takes it to TL1; frame 23 (TL2 without Y) may reference a TL2 frame that was not sent: not yet.
        #expect(Self.run(&filter, frames: 22..<24) == [1])
    }

    @Test("every packet of a frame gets the frame's decision, and a late packet of an earlier frame changes nothing")
    func perFrame() {
        var filter = TemporalLayerFilter()
        filter.ceiling = 1
        let accepted1 = filter.accept(Self.pattern[0], timestamp: 0, switched: false)
        #expect(accepted1)
        let accepted2 = filter.accept(Self.pattern[1], timestamp: 3000, switched: false)
        #expect(!accepted2)
        let accepted3 = filter.accept(Self.pattern[1], timestamp: 3000, switched: false)
        #expect(!accepted3, "the frame's second packet")
        let accepted4 = filter.accept(Self.pattern[2], timestamp: 6000, switched: false)
        #expect(accepted4)
        filter.ceiling = 0
        let accepted5 = filter.accept(Self.pattern[2], timestamp: 6000, switched: false)
        #expect(accepted5, "the rest of a frame already begun")
        let accepted6 = filter.accept(Self.pattern[0], timestamp: 0, switched: false)
        #expect(accepted6, "late, of an older frame: no new decision")
        let accepted7 = filter.accept(Self.pattern[3], timestamp: 9000, switched: false)
        #expect(!accepted7, "the next frame: down")
    }

    @Test("a spatial switch's keyframe takes the ceiling at once, without waiting for Y")
    func spatialSwitch() {
        var filter = TemporalLayerFilter()
        filter.ceiling = 0
        let accepted8 = filter.accept(.init(layer: 0, sync: false), timestamp: 0, switched: false)
        #expect(accepted8)
        filter.ceiling = nil
        let accepted9 = filter.accept(.init(layer: 1, sync: false), timestamp: 3000, switched: false)
        #expect(!accepted9, "no Y: not yet")
        let accepted10 = filter.accept(.init(layer: 0, sync: false), timestamp: 6000, switched: true)
        #expect(accepted10)
        let accepted11 = filter.accept(.init(layer: 1, sync: false), timestamp: 9000, switched: false)
        #expect(accepted11)
    }
}

extension TemporalLayerTests {
    @Test("the layer switched to has its own timestamps: later ceilings still apply at its frames, and a new timeline is followed")
    func timelines() {
        var filter = TemporalLayerFilter()
        _ = Self.run(&filter, frames: 1000..<1004)
        // The new simulcast layer's timestamps are far behind the old one's (3,000,000 ticks).
        let behind = UInt32(10) * 3000
        let keyframe = filter.accept(.init(layer: 0, sync: false), timestamp: behind, switched: true)
        #expect(keyframe)
        filter.ceiling = 0
        let next = filter.accept(.init(layer: 2, sync: true), timestamp: behind + 3000, switched: false)
        #expect(!next, "the ceiling applies at the new layer's next frame")
        // A publisher that reconnected: its timestamps start over far behind, with no switch.
        filter.ceiling = nil
        let restarted = filter.accept(.init(layer: 1, sync: true), timestamp: (behind + 3000) &- 1_000_000, switched: false)
        #expect(restarted, "10 s or more behind is a new timeline: a new frame, and Y takes it up")
    }
}

/// What a producer measures of its temporal layers, and the steps it offers an allocator.
struct TemporalLayerRatesTests {
    @Test("cumulative shares per temporal layer; none for a layer without temporal layers or with only TL0")
    func shares() {
        var rates = TemporalLayerRates(layers: 3)
        for (tid, count) in [(0, 400), (1, 200), (2, 400)] { rates.record(layer: 0, temporalLayer: UInt8(tid), count: count) }
        rates.record(layer: 1, temporalLayer: 0, count: 1000)
        rates.record(layer: 7, temporalLayer: 0, count: 1000)   // no such layer: ignored
        rates.measure()
        #expect(rates.shares == [[0.4, 0.6, 1.0], [], []])
        rates.measure()
        #expect(rates.shares == [[], [], []], "nothing since: no split")
    }

    @Test("every temporal step of the lowest layer on offer; the layers above it whole")
    func steps() {
        var rates = TemporalLayerRates(layers: 3)
        for layer in 0..<3 {
            for (tid, count) in [(0, 400), (1, 200), (2, 400)] { rates.record(layer: layer, temporalLayer: UInt8(tid), count: count) }
        }
        rates.measure()
        #expect(rates.steps(costs: [150_000, 200_000, 1_000_000]) == [
            LayerStep(layer: 0, temporalLayer: 0, bitrate: 60_000),
            LayerStep(layer: 0, temporalLayer: 1, bitrate: 90_000),
            LayerStep(layer: 0, bitrate: 150_000),
            LayerStep(layer: 1, bitrate: 200_000),
            LayerStep(layer: 2, bitrate: 1_000_000),
        ])
        #expect(rates.steps(costs: [0, 200_000, 0]) == [
            LayerStep(layer: 0, bitrate: 0),
            LayerStep(layer: 1, temporalLayer: 0, bitrate: 80_000),
            LayerStep(layer: 1, temporalLayer: 1, bitrate: 120_000),
            LayerStep(layer: 1, bitrate: 200_000),
            LayerStep(layer: 2, bitrate: 0),
        ], "the lowest layer on offer gets the temporal steps")
        #expect(TemporalLayerRates(layers: 2).steps(costs: [100, 300]) == [LayerStep(layer: 0, bitrate: 100), LayerStep(layer: 1, bitrate: 300)],
                "no temporal layers: one step per layer")
    }
}

/// A consumer below the top temporal layer: the subscriber sees one stream without gaps.
struct TemporalForwardingTests {
    /// One packet of a frame with the SDK's L1T3 descriptor.
    /// - Parameters: first, last: whether it begins its frame (S = 1) and ends it (marker).
    static func packet(sequence: UInt16, frame: Int, tl0: UInt8, first: Bool = true, last: Bool = true) -> [UInt8] {
        let mark = TemporalLayerTests.pattern[frame % 4]
        let descriptor = VP8PayloadDescriptor(nonReferenceFrame: mark.layer == 2, startOfPartition: first, pictureID: UInt16(1000 + frame),
                                              tl0PicIdx: tl0, temporalLayerID: mark.layer, layerSync: mark.sync)
        // The helper's header comes with one byte of payload: the descriptor takes its place.
        return RTPMungerTests.packet(ssrc: 0x1234, sequence: sequence, timestamp: UInt32(frame) * 3000, marker: last).dropLast()
            + descriptor.serialized() + [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A]
    }

    @Test("a stream without simulcast offers its temporal layers to allocators once a second of them was measured; a simulcast one is not such a stream")
    func singleStreamWithTemporalLayers() {
        let (producer, _, _) = ProducerConsumerTests().setUp()
        let start = PacketTime.now
        producer.measureLayerRates(now: start)
        #expect(!producer.isSingleStreamWithTemporalLayers, "nothing measured yet")
        var tl0: UInt8 = 0
        for frame in 0..<8 {
            if frame % 4 == 0 { tl0 &+= 1 }
            var bytes = Self.packet(sequence: UInt16(100 + frame), frame: frame, tl0: tl0)
            bytes.withUnsafeMutableBytes { producer.receive($0, fields: RTPFixedFields(UnsafeRawBufferPointer($0))) }
        }
        producer.measureLayerRates(now: start + .seconds(1))
        #expect(producer.isSingleStreamWithTemporalLayers)
        #expect(producer.allocationSteps(now: start + .seconds(1)).map(\.temporalLayer) == [0, 1, nil])
        // A second without packets measures no temporal layers.
        producer.measureLayerRates(now: start + .seconds(2))
        #expect(!producer.isSingleStreamWithTemporalLayers)
        #expect(!Producer(id: "p:video", kind: .video, layers: ["q", "h", "f"]) { _ in }.isSingleStreamWithTemporalLayers)
    }

    @Test("frames above the ceiling are not sent: sequence numbers and PictureIDs continue without a gap, and NACKs still find their originals")
    func dropsWithoutGaps() throws {
        let (producer, consumer, sink) = ProducerConsumerTests().setUp()
        consumer.setCeiling(nil, temporalLayer: 1)
        var tl0: UInt8 = 9
        for frame in 0..<8 {
            if frame % 4 == 0 { tl0 &+= 1 }
            var bytes = Self.packet(sequence: UInt16(100 + frame), frame: frame, tl0: tl0)
            bytes.withUnsafeMutableBytes { producer.receive($0, fields: RTPFixedFields(UnsafeRawBufferPointer($0))) }
        }
        let sent = try sink.packets.map { packet in
            let payload = try packet.withUnsafeBytes { try RTPHeader.parse($0).payload }
            let descriptor = try Array(packet[payload]).withUnsafeBytes { try VP8PayloadDescriptor.parse($0).descriptor }
            return (sequence: RTPFixedFields.peek(packet).sequenceNumber, pictureID: descriptor.pictureID, tid: descriptor.temporalLayerID)
        }
        // Frames 0 2 4 6 (TL0, TL1) of 0…7 go out.
        #expect(sent.map(\.tid) == [0, 1, 0, 1])
        #expect(sent.map(\.sequence) == [100, 101, 102, 103])
        #expect(sent.map(\.pictureID) == [1000, 1001, 1002, 1003])
        // The subscriber lost its 102 (frame 4, sent as 104 by the publisher): resent as it first went out.
        #expect(consumer.retransmit([102]) == 1)
        let resent = try #require(sink.packets.last)
        let payload = try resent.withUnsafeBytes { try RTPHeader.parse($0).payload }
        let descriptor = try Array(resent[payload]).withUnsafeBytes { try VP8PayloadDescriptor.parse($0).descriptor }
        #expect(RTPFixedFields.peek(resent).sequenceNumber == 102 && descriptor.pictureID == 1002)
    }

    @Test("upstream loss with frames skipped: the end of a forwarded frame stays a gap, filled when resent; the end of a skipped frame takes no number")
    func upstreamLossAroundSkippedFrames() throws {
        let (producer, consumer, sink) = ProducerConsumerTests().setUp()
        consumer.setCeiling(nil, temporalLayer: 1)
        // Two packets a frame: frame f is sequence numbers 100 + 2f (S = 1) and 101 + 2f (marker).
        func receive(frame: Int, second: Bool) {
            var bytes = Self.packet(sequence: UInt16(100 + 2 * frame + (second ? 1 : 0)), frame: frame, tl0: 10, first: !second, last: second)
            bytes.withUnsafeMutableBytes { producer.receive($0, fields: RTPFixedFields(UnsafeRawBufferPointer($0))) }
        }
        func sent() -> [UInt16] { sink.packets.map { RTPFixedFields.peek($0).sequenceNumber } }
        receive(frame: 0, second: false)
        // 101, the end of frame 0 (TL0), is lost on the way in; frame 1 (TL2) is above the ceiling.
        for frame in 1...2 {
            receive(frame: frame, second: false)
            receive(frame: frame, second: true)
        }
        #expect(sent() == [100, 102, 103], "101 stays a gap for the subscriber")
        #expect(consumer.outgoingGaps.unfilled == 1 && consumer.outgoingGaps.contains(101))
        // The publisher resends it (after the server's NACK): it goes out as 101, with frame 0's PictureID.
        receive(frame: 0, second: true)
        let late = try #require(sink.packets.last)
        let payload = try late.withUnsafeBytes { try RTPHeader.parse($0).payload }
        let descriptor = try Array(late[payload]).withUnsafeBytes { try VP8PayloadDescriptor.parse($0).descriptor }
        #expect(RTPFixedFields.peek(late).sequenceNumber == 101 && descriptor.pictureID == 1000)
        #expect(consumer.outgoingGaps.unfilled == 0)
        // 107, the end of frame 3 (TL2, skipped), is lost: frame 4 follows with no gap, and 107 resent goes nowhere.
        receive(frame: 3, second: false)
        receive(frame: 4, second: false)
        receive(frame: 4, second: true)
        #expect(sent().suffix(2) == [104, 105])
        #expect(consumer.outgoingGaps.unfilled == 0)
        receive(frame: 3, second: true)
        #expect(sink.packets.count == 6)
    }
}
