import Testing
@testable import StageSFU

/// Dynacast: which simulcast layers a publisher should send, from what its consumers want.
struct DynacastTests {
    static let start = PacketTime.now
    static func at(_ milliseconds: Int) -> PacketTime { start + .milliseconds(milliseconds) }

    @Test("a wanted layer is enabled at once; an unwanted one is paused after 3 s; the lowest never is")
    func activity() {
        var activity = LayerActivity(layerCount: 3)
        #expect(activity.enabled == [true, true, true], "everything is sent before anyone says otherwise")
        #expect(activity.update(wanted: [true, false, false], now: Self.at(0)) == nil)
        #expect(activity.update(wanted: [true, false, false], now: Self.at(2_999)) == nil)
        #expect(activity.update(wanted: [false, false, false], now: Self.at(3_000)) == [true, false, false],
                "h and f unwanted for 3 s; q stays whatever is wanted")
        #expect(activity.update(wanted: [false, false, true], now: Self.at(3_500)) == [true, false, true], "f wanted again: at once")
        #expect(activity.update(wanted: [false, true, false], now: Self.at(4_000)) == [true, true, true])
        #expect(activity.update(wanted: [false, true, true], now: Self.at(6_000)) == nil, "f wanted again within 3 s: kept")
        #expect(activity.update(wanted: [false, true, false], now: Self.at(7_000)) == nil)
        #expect(activity.update(wanted: [false, true, false], now: Self.at(10_000)) == [true, true, false])
    }

    static func simulcast() -> (Producer, [Consumer]) {
        let producer = Producer(id: "p:video", kind: .video, layers: ["q", "h", "f"]) { _ in }
        let consumers = (0..<2).map { index in
            Consumer(id: "c\(index)", producer: producer, outgoingSSRC: 0xC0 + UInt32(index), payloadType: 96, transport: RecordingTransport())
        }
        return (producer, consumers)
    }

    @Test("layers in use: each consumer's preferred layer and allocator ceiling, whatever flows now")
    func layersInUse() {
        let (producer, consumers) = Self.simulcast()
        #expect(producer.layersInUse() == [false, false, true], "no limit: the top layer")
        consumers[0].setCeiling(0)
        consumers[1].setPreferredLayer(1)
        #expect(producer.layersInUse() == [true, true, false])
        consumers[1].setCeiling(2)
        #expect(producer.layersInUse() == [true, true, false], "the lower of preferred and ceiling")
        consumers[0].close()
        consumers[1].close()
        #expect(producer.layersInUse() == [false, false, false], "no consumer, nothing in use")
    }

    @Test("a paused layer stays on offer to the allocators at its last measured rate; one that stopped by itself does not")
    func allocatableBitrates() {
        let (producer, _) = Self.simulcast()
        let now = PacketTime.now
        producer.measureLayerRates(now: now)
        for (layer, ssrc) in [(0, UInt32(0x10)), (1, 0x11), (2, 0x12)] {
            var packet = RTPMungerTests.packet(ssrc: ssrc, sequence: 1, timestamp: 0) + [UInt8](repeating: 0, count: 1_237)
            packet.withUnsafeMutableBytes { producer.receive($0, fields: RTPFixedFields(UnsafeRawBufferPointer($0)), layer: layer, now: now) }
        }
        producer.measureLayerRates(now: now + .seconds(1))
        #expect(producer.layerBitrates == [10_000, 10_000, 10_000])
        producer.measureLayerRates(now: now + .seconds(3))
        #expect(producer.layerBitrates == [0, 0, 0], "silent for 2 s: not flowing")
        producer.setPublisherLayers(enabled: [true, true, false], now: now + .seconds(3))
        #expect(producer.allocatableBitrates(now: now + .seconds(3)) == [0, 0, 10_000])
        // f resumes and its first window holds a quarter of a second of it: the allocators see its peak.
        producer.setPublisherLayers(enabled: [true, true, true], now: now + .seconds(3))
        var packet = RTPMungerTests.packet(ssrc: 0x12, sequence: 2, timestamp: 0) + [UInt8](repeating: 0, count: 237)
        packet.withUnsafeMutableBytes { producer.receive($0, fields: RTPFixedFields(UnsafeRawBufferPointer($0)), layer: 2, now: now + .seconds(3)) }
        producer.measureLayerRates(now: now + .seconds(4))
        #expect(producer.layerBitrates[2] == 2_000)
        #expect(producer.allocatableBitrates(now: now + .seconds(4)) == [0, 0, 10_000], "its peak, not worn down while it resumes")
        #expect(producer.allocatableBitrates(now: now + .seconds(6)) == [0, 0, 2_000], "measured over a whole grace: its own rate")
        producer.setPublisherLayers(enabled: [true, true, false], now: now + .seconds(6))
        #expect(producer.allocatableBitrates(now: now + .seconds(6)) == [0, 0, 10_000], "paused again: the peak")
        producer.setPublisherLayers(enabled: [true, true, true], now: now + .seconds(7))
        #expect(producer.allocatableBitrates(now: now + .seconds(9)) == [0, 0, 10_000], "resumed, not measured yet: still offered")
        producer.measureLayerRates(now: now + .seconds(10))
        #expect(producer.allocatableBitrates(now: now + .seconds(10)) == [0, 0, 0], "resumed 3 s ago and still silent: stopped")
    }

    @Test("a copy (behind a pipe) offers a layer the origin paused at the origin's peak, though it never saw the layer flow; resumed there, it is offered for the grace")
    func copyOffersWhatTheOriginPaused() {
        let (copy, _) = Self.simulcast()
        let now = PacketTime.now
        copy.measureLayerRates(now: now)
        Self.send(copy, layer: 0, bytes: 1_250, sequence: 1, at: now)
        copy.measureLayerRates(now: now + .seconds(1))
        #expect(copy.allocatableBitrates(now: now + .seconds(1)) == [10_000, 0, 0], "h and f never seen: not on offer")
        copy.setOriginLayer(1, paused: false, peakBitrate: 40_000, now: now + .seconds(1))
        copy.setOriginLayer(2, paused: true, peakBitrate: 90_000, now: now + .seconds(1))
        copy.setOriginLayer(3, paused: true, peakBitrate: 1, now: now + .seconds(1))   // no such layer: ignored
        #expect(copy.pausedByPublisher == [false, false, true])
        #expect(copy.allocatableBitrates(now: now + .seconds(1)) == [10_000, 0, 90_000], "f paused at the origin: its peak there")
        copy.setOriginLayer(2, paused: false, peakBitrate: 90_000, now: now + .seconds(2))
        #expect(copy.allocatableBitrates(now: now + .seconds(4)) == [10_000, 0, 90_000], "resumed at the origin: offered for the grace")
        copy.measureLayerRates(now: now + .seconds(5))
        #expect(copy.allocatableBitrates(now: now + .seconds(5)) == [0, 0, 0], "never came: stopped")
    }

    /// One second of a layer: `bytes` in one packet at `at`.
    static func send(_ producer: Producer, layer: Int, bytes: Int, sequence: UInt16, at: PacketTime) {
        var packet = RTPMungerTests.packet(ssrc: 0x10 + UInt32(layer), sequence: sequence, timestamp: 0)
        packet += [UInt8](repeating: 0, count: bytes - packet.count)
        packet.withUnsafeMutableBytes { producer.receive($0, fields: RTPFixedFields(UnsafeRawBufferPointer($0)), layer: layer, now: at) }
    }

    @Test("a resumed layer ramping up keeps its peak; it decays once the layer has flowed a whole grace; a layer on offer never costs less than the one below")
    func resumedPeakAndOrder() {
        let (producer, _) = Self.simulcast()
        let now = PacketTime.now
        producer.measureLayerRates(now: now)
        Self.send(producer, layer: 0, bytes: 1_250, sequence: 1, at: now)
        Self.send(producer, layer: 1, bytes: 5_000, sequence: 1, at: now)
        producer.measureLayerRates(now: now + .seconds(1))
        #expect(producer.allocatableBitrates(now: now + .seconds(1)) == [10_000, 40_000, 0], "f never seen: not on offer")
        producer.setPublisherLayers(enabled: [true, false, true], now: now + .seconds(1))
        producer.setPublisherLayers(enabled: [true, true, true], now: now + .seconds(2))
        // h resumes with its encoder ramping up: a quarter of its rate for two measurements.
        for second in 2...3 {
            Self.send(producer, layer: 0, bytes: 1_250, sequence: UInt16(second), at: now + .seconds(second))
            Self.send(producer, layer: 1, bytes: 1_250, sequence: UInt16(second), at: now + .seconds(second))
            producer.measureLayerRates(now: now + .seconds(second + 1))
        }
        producer.setPublisherLayers(enabled: [true, false, true], now: now + .seconds(4))
        #expect(producer.allocatableBitrates(now: now + .seconds(4)) == [10_000, 40_000, 0],
                "paused after a ramp inside the grace: offered at its peak, not at q's cost")
        // Resumed again, h flows at a lower rate for good: the peak decays towards it after the grace.
        producer.setPublisherLayers(enabled: [true, true, true], now: now + .seconds(4))
        for second in 4...9 {
            Self.send(producer, layer: 0, bytes: 1_250, sequence: UInt16(second), at: now + .seconds(second))
            Self.send(producer, layer: 1, bytes: 2_500, sequence: UInt16(second), at: now + .seconds(second))
            producer.measureLayerRates(now: now + .seconds(second + 1))
        }
        producer.setPublisherLayers(enabled: [true, false, true], now: now + .seconds(10))
        let decayed = producer.allocatableBitrates(now: now + .seconds(10))[1]
        #expect(decayed >= 20_000 && decayed < 40_000, "worn down by the measurements after the grace: \(decayed)")
        // q grows past h's paused peak: h is offered at no less than q.
        for second in 10...11 {
            Self.send(producer, layer: 0, bytes: 12_500, sequence: UInt16(second), at: now + .seconds(second))
            producer.measureLayerRates(now: now + .seconds(second + 1))
        }
        #expect(producer.allocatableBitrates(now: now + .seconds(12)) == [100_000, 100_000, 0])
    }
}
