import Testing
@testable import StageSFU

/// Forwarding, mute and Sender Report translation between a producer and its consumers, with
/// the transport replaced by a recorder of what would be sent.
struct ProducerConsumerTests {
    /// What the consumer sent, and the keyframes its producer asked for.
    final class Sink {
        let transport = RecordingTransport()
        var keyframeRequests: [UInt32] = []
        var packets: [[UInt8]] { transport.packets }
        var reports: [(ssrc: UInt32, ntp: UInt64, rtp: UInt32, packets: UInt32, octets: UInt32)] { transport.reports }
    }

    func setUp() -> (Producer, Consumer, Sink) {
        let sink = Sink()
        let producer = Producer(id: "p:video", kind: .video) { sink.keyframeRequests.append($0) }
        let consumer = Consumer(id: "c", producer: producer, outgoingSSRC: 0xC0FFEE, payloadType: 100, transport: sink.transport)
        return (producer, consumer, sink)
    }

    func send(_ producer: Producer, sequence: UInt16, timestamp: UInt32) {
        var packet = RTPMungerTests.packet(ssrc: 0x1234, sequence: sequence, timestamp: timestamp) + [UInt8](repeating: 0, count: 99)
        packet.withUnsafeMutableBytes { producer.receive($0, fields: RTPFixedFields(UnsafeRawBufferPointer($0))) }
    }

    @Test("RFC 3550 §6.4.1: a publisher's SR reaches the consumer on its SSRC and timeline, with its counts")
    func senderReportIsTranslated() {
        let (producer, _, sink) = setUp()
        send(producer, sequence: 10, timestamp: 90_000)
        send(producer, sequence: 11, timestamp: 93_000)
        producer.senderReport(ssrc: 0x1234, ntpTime: 0xAABB_CCDD_0000_0000, rtpTime: 93_000)
        #expect(sink.reports.count == 1)
        #expect(sink.reports.first?.ssrc == 0xC0FFEE)
        #expect(sink.reports.first?.ntp == 0xAABB_CCDD_0000_0000)
        #expect(sink.reports.first?.rtp == 93_000)   // no source switch yet: same timeline
        #expect(sink.reports.first?.packets == 2 && sink.reports.first?.octets == 200)
        producer.senderReport(ssrc: 0x9999, ntpTime: 1, rtpTime: 1)   // another source: not this consumer's
        #expect(sink.reports.count == 1)
    }

    @Test("a closed producer tells its consumers' transports once, and forwards nothing more")
    func closedProducerTellsTheTransport() {
        let (producer, consumer, sink) = setUp()
        send(producer, sequence: 1, timestamp: 0)
        producer.close()
        #expect(sink.transport.producerClosures == 1)
        #expect(consumer.producer == nil)
        send(producer, sequence: 2, timestamp: 3000)
        #expect(sink.packets.count == 1)
    }

    @Test("a muted producer forwards nothing; unmuting asks the publisher for a keyframe and leaves no sequence gap")
    func muteStopsForwarding() {
        let (producer, _, sink) = setUp()
        send(producer, sequence: 1, timestamp: 0)
        producer.isMuted = true
        send(producer, sequence: 2, timestamp: 3000)
        #expect(sink.packets.count == 1)
        let requestsBefore = sink.keyframeRequests.count
        producer.isMuted = false
        #expect(sink.keyframeRequests == Array(repeating: 0x1234, count: requestsBefore + 1))
        send(producer, sequence: 3, timestamp: 6000)
        #expect(sink.packets.count == 2)
        #expect(sink.packets.last.map { RTPFixedFields.peek($0).ssrc } == 0xC0FFEE)
        #expect(sink.packets.map { RTPFixedFields.peek($0).sequenceNumber } == [1, 2],
                "no gap where the muted packet was: the subscriber must not ask for it")
    }

    @Test("NACKed packets are resent from the cache with the consumer's numbering")
    func nackIsAnsweredFromCache() {
        let (producer, consumer, sink) = setUp()
        for sequence in UInt16(100)..<110 { send(producer, sequence: sequence, timestamp: UInt32(sequence) * 3000) }
        let resent = consumer.retransmit([103, 105, 200])
        #expect(resent == 2)
        #expect(sink.packets.suffix(2).map { RTPFixedFields.peek($0).sequenceNumber } == [103, 105])
    }

    @Test("a reconnected publisher's new producer takes the consumers: one continuous stream on the subscriber's SSRC")
    func handOverKeepsTheConsumer() {
        let (old, consumer, sink) = setUp()
        send(old, sequence: 500, timestamp: 90_000)
        send(old, sequence: 501, timestamp: 93_000)
        let successor = Producer(id: "p:video", kind: .video) { _ in }
        old.handOver(to: successor)
        #expect(consumer.producer === successor)
        send(old, sequence: 502, timestamp: 96_000)   // the old session's late packets reach nobody
        #expect(sink.packets.count == 2)
        var packet = RTPMungerTests.packet(ssrc: 0x5678, sequence: 7, timestamp: 1_000) + [UInt8](repeating: 0, count: 99)
        packet.withUnsafeMutableBytes { successor.receive($0, fields: RTPFixedFields(UnsafeRawBufferPointer($0))) }
        #expect(sink.packets.count == 3)
        let fields = sink.packets.map { RTPFixedFields.peek($0) }
        #expect(fields.map(\.ssrc) == [0xC0FFEE, 0xC0FFEE, 0xC0FFEE], "the subscriber keeps its SSRC")
        #expect(fields[2].sequenceNumber == fields[1].sequenceNumber &+ 1, "sequence numbers continue across the switch")
        old.close()
        #expect(consumer.producer === successor, "closing the replaced producer no longer touches the moved consumer")
        let audio = Producer(id: "p:audio", kind: .audio) { _ in }
        successor.handOver(to: audio)
        #expect(consumer.producer === successor, "never to a producer of another kind")
    }
}

extension ProducerConsumerTests {
    static func simulcastConsumer(layers: [String], preferring rid: String?) -> (Producer, Consumer) {
        let producer = Producer(id: "p:video", kind: .video, layers: layers) { _ in }
        let consumer = Consumer(id: "c", producer: producer, outgoingSSRC: 0xC0FFEE, payloadType: 100, transport: RecordingTransport())
        consumer.setPreferredLayer(rid.flatMap { layers.firstIndex(of: $0) })
        return (producer, consumer)
    }

    @Test("a hand-over keeps the preferred simulcast layer by its rid, wherever the new offer lists it", arguments: [
        (["q", "h", "f"], "h", ["q", "h", "f"], 1 as Int?),
        (["q", "h", "f"], "h", ["f", "h", "q"], 1),
        (["q", "h", "f"], "f", ["h", "f"], 1),
        (["q", "h", "f"], "q", ["h", "f"], nil),       // a rid the new offer lacks: no preference (the highest)
        (["q", "h", "f"], nil, ["h", "f"], nil),
    ] as [([String], String?, [String], Int?)])
    func handOverKeepsTheLayerByRID(old: [String], preferred: String?, new: [String], expected: Int?) {
        let (producer, consumer) = Self.simulcastConsumer(layers: old, preferring: preferred)
        let successor = Producer(id: "p:video", kind: .video, layers: new) { _ in }
        producer.handOver(to: successor)
        #expect(consumer.producer === successor)
        #expect(consumer.selector?.preferred == expected)
        #expect(consumer.selector?.preferred.map { new[$0] } == expected.map { _ in preferred ?? "" })
    }

    @Test("a hand-over keeps the allocator's ceiling by its rid; a rid the new offer lacks gives the lowest layer", arguments: [
        (["q", "h", "f"], 1 as Int?, ["q", "h", "f"], 1 as Int?),
        (["q", "h", "f"], 0, ["f", "h", "q"], 2),
        (["q", "h", "f"], 0, ["h", "f"], 0),
        (["q", "h", "f"], nil, ["q", "h", "f"], nil),   // no ceiling: none after
    ] as [([String], Int?, [String], Int?)])
    func handOverKeepsTheCeilingByRID(old: [String], ceiling: Int?, new: [String], expected: Int?) {
        let (producer, consumer) = Self.simulcastConsumer(layers: old, preferring: nil)
        consumer.setCeiling(ceiling)
        let successor = Producer(id: "p:video", kind: .video, layers: new) { _ in }
        producer.handOver(to: successor)
        #expect(consumer.selector?.ceiling == expected)
    }

    @Test("a hand-over to a plain track drops the layer selector; back to simulcast starts without preference")
    func handOverBetweenSimulcastAndPlain() {
        let (producer, consumer) = Self.simulcastConsumer(layers: ["h", "f"], preferring: "h")
        let plain = Producer(id: "p:video", kind: .video) { _ in }
        producer.handOver(to: plain)
        #expect(consumer.selector == nil)
        let simulcast = Producer(id: "p:video", kind: .video, layers: ["h", "f"]) { _ in }
        plain.handOver(to: simulcast)
        #expect(consumer.selector != nil && consumer.selector?.preferred == nil)
    }

    @Test("a move down on a link that overflows stops the current layer at once; the lower keyframe follows without a sequence gap")
    func overflowingMoveDownStopsTheCurrentLayer() {
        for overflows in [false, true] {
            let sink = RecordingTransport()
            let producer = Producer(id: "p:video", kind: .video, layers: ["q", "h", "f"]) { _ in }
            let consumer = RetransmissionTests.consumer(of: producer, sink: sink)
            // The top layer first: the consumer starts on it and drops the other two.
            for (layer, ssrc) in [(2, UInt32(0x12)), (1, 0x11), (0, 0x10)] {
                RetransmissionTests.receive(producer, RetransmissionTests.vp8(ssrc: ssrc, sequence: 100, keyframe: true), layer: layer)
            }
            #expect(consumer.selector?.current == 2 && sink.packets.count == 1)
            consumer.setCeiling(0, overflows: overflows)
            RetransmissionTests.receive(producer, RetransmissionTests.vp8(ssrc: 0x12, sequence: 101), layer: 2, at: 10)
            RetransmissionTests.receive(producer, RetransmissionTests.vp8(ssrc: 0x10, sequence: 101), layer: 0, at: 10)
            #expect(sink.packets.count == (overflows ? 1 : 2), "the top layer goes on only while the link is merely short")
            RetransmissionTests.receive(producer, RetransmissionTests.vp8(ssrc: 0x10, sequence: 102, keyframe: true), layer: 0, at: 20)
            let sent = sink.packets.map { RTPFixedFields.peek($0).sequenceNumber }
            #expect(sent.count == (overflows ? 2 : 3) && consumer.selector?.current == 0)
            #expect(sent.last == sent[sent.count - 2] &+ 1, "no gap for the subscriber to ask about")
        }
    }
}

extension RTPFixedFields {
    static func peek(_ bytes: [UInt8]) -> RTPFixedFields {
        bytes.withUnsafeBytes { RTPFixedFields($0) }
    }
}
