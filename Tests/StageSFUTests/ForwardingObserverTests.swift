import Testing
@testable import StageSFU

/// What the forwarding path reports to its observer: each `ForwardingDrop`, keyframe requests by
/// reason, and NACKs. (The server counts them; here a recording observer stands in.)
struct ForwardingObserverTests {
    final class Recorder: ForwardingObserver {
        var drops: [ForwardingDrop] = []
        var keyframes: [KeyframeRequestReason] = []
        var nacks: [(requested: Int, answered: Int)] = []
        func dropped(_ drop: ForwardingDrop) { drops.append(drop) }
        func keyframeRequested(_ reason: KeyframeRequestReason) { keyframes.append(reason) }
        var upstreamRequests: [Int] = []
        func retransmitted(requested: Int, answered: Int) { nacks.append((requested, answered)) }
        func retransmissionRequested(count: Int) { upstreamRequests.append(count) }
    }

    static func producer(_ recorder: Recorder, layers: [String] = []) -> Producer {
        Producer(id: "p:video", kind: .video, layers: layers, observer: recorder) { _ in }
    }

    static func consumer(of producer: Producer) -> Consumer {
        Consumer(id: "c", producer: producer, outgoingSSRC: 0xC0FFEE, payloadType: 96, transport: RecordingTransport())
    }

    static func send(_ producer: Producer, sequence: UInt16, layer: Int = 0, ssrc: UInt32 = 0x1234) {
        var packet = RTPMungerTests.packet(ssrc: ssrc, sequence: sequence, timestamp: 0) + [0x10, 0, 0, 0]
        packet.withUnsafeMutableBytes { producer.receive($0, fields: RTPFixedFields(UnsafeRawBufferPointer($0)), layer: layer) }
    }

    @Test("every ForwardingDrop is reported where it happens", arguments: ForwardingDrop.allCases)
    func dropIsReported(_ drop: ForwardingDrop) {
        let recorder = Recorder()
        switch drop {
        case .muted:
            let producer = Self.producer(recorder)
            producer.isMuted = true
            Self.send(producer, sequence: 1)
        case .consumerPaused:
            let producer = Self.producer(recorder)
            Self.consumer(of: producer).isPaused = true
            Self.send(producer, sequence: 1)
        case .layerNotSelected:
            let producer = Self.producer(recorder, layers: ["l", "h"])
            _ = Self.consumer(of: producer)
            Self.send(producer, sequence: 1, layer: 0, ssrc: 1)
        case .nackNotCached:
            let producer = Self.producer(recorder)
            let consumer = Self.consumer(of: producer)
            Self.send(producer, sequence: 1)
            #expect(consumer.retransmit([1, 500]) == 1)
            #expect(recorder.nacks.count == 1 && recorder.nacks[0] == (2, 1))
        case .keyframeRequestThrottled:
            let producer = Self.producer(recorder)
            let consumer = Self.consumer(of: producer)
            Self.send(producer, sequence: 1)
            consumer.requestKeyframe()
            consumer.requestKeyframe()
        case .duplicate:
            let producer = Self.producer(recorder)
            let consumer = Self.consumer(of: producer)
            Self.send(producer, sequence: 1)
            Self.send(producer, sequence: 1)
            Self.send(producer, sequence: 2)
            #expect(consumer.packetsForwarded == 2, "the repeat is not forwarded")
        }
        #expect(recorder.drops.contains(drop))
    }

    @Test("keyframe requests are reported with their reason when they go towards the publisher")
    func keyframeReasons() {
        let recorder = Recorder()
        let producer = Self.producer(recorder)
        Self.send(producer, sequence: 1)
        let consumer = Self.consumer(of: producer)
        #expect(recorder.keyframes == [.newConsumer])
        consumer.requestKeyframe(reason: .subscriberConnected)
        #expect(recorder.keyframes == [.newConsumer], "throttled: one went less than 300 ms before")
        #expect(recorder.drops == [.keyframeRequestThrottled])
    }
}
