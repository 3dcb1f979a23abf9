import Testing
@testable import StageSFU

/// `ProducerTap`: a pipe's origin end gets every packet of every layer (not only the ones a
/// consumer selected), the sender reports, the hand-over to a reconnected publisher's producer
/// and the close; what it says is used behind it keeps those layers in dynacast's demand.
struct ProducerTapTests {
    final class Recorder: ProducerTap {
        var packets: [(layer: Int, ssrc: UInt32, sequence: UInt16)] = []
        var reports: [UInt32] = []
        var successors: [String] = []
        var closed = 0

        func producer(_ producer: Producer, forwards packet: UnsafeRawBufferPointer, fields: RTPFixedFields, layer: Int) {
            packets.append((layer, fields.ssrc, fields.sequenceNumber))
        }
        func producer(_ producer: Producer, senderReport ssrc: UInt32, ntpTime: UInt64, rtpTime: UInt32) { reports.append(ssrc) }
        func producer(_ producer: Producer, handedOverTo successor: Producer) { successors.append(successor.id) }
        func producerClosed(_ producer: Producer) { closed += 1 }
    }

    static func send(_ producer: Producer, layer: Int, ssrc: UInt32, sequence: UInt16) {
        var packet = RTPMungerTests.packet(ssrc: ssrc, sequence: sequence, timestamp: 0) + [UInt8](repeating: 0, count: 100)
        packet.withUnsafeMutableBytes { producer.receive($0, fields: RTPFixedFields(UnsafeRawBufferPointer($0)), layer: layer) }
    }

    @Test("every layer reaches the tap whatever the consumers select; duplicates and muted packets do not")
    func everyLayer() {
        let (producer, consumers) = DynacastTests.simulcast()
        consumers[0].setPreferredLayer(0)
        let tap = Recorder()
        producer.attach(tap: tap)
        for (layer, ssrc) in [(0, UInt32(0x10)), (1, 0x11), (2, 0x12)] { Self.send(producer, layer: layer, ssrc: ssrc, sequence: 1) }
        Self.send(producer, layer: 2, ssrc: 0x12, sequence: 1)
        producer.isMuted = true
        Self.send(producer, layer: 0, ssrc: 0x10, sequence: 2)
        #expect(tap.packets.map(\.layer) == [0, 1, 2], "each layer once: the duplicate and the muted packet are not forwarded")
        producer.senderReport(ssrc: 0x11, ntpTime: 1, rtpTime: 2)
        #expect(tap.reports == [0x11])
        producer.detach(tap: tap)
        producer.isMuted = false
        Self.send(producer, layer: 0, ssrc: 0x10, sequence: 3)
        #expect(tap.packets.count == 3, "detached: nothing more")
    }

    @Test("demand behind a tap keeps its layers in use, until it is detached")
    func demand() {
        let (producer, consumers) = DynacastTests.simulcast()
        consumers[0].setCeiling(0)
        consumers[1].setCeiling(0)
        let tap = Recorder(), stranger = Recorder()
        #expect(producer.layersInUse() == [true, false, false])
        producer.setDemand([false, false, true], behind: stranger)
        #expect(producer.layersInUse() == [true, false, false], "an unattached tap's demand counts for nothing")
        producer.attach(tap: tap)
        producer.setDemand([false, true, false], behind: tap)
        #expect(producer.layersInUse() == [true, true, false], "the far side's h beside the near side's q")
        producer.detach(tap: tap)
        #expect(producer.layersInUse() == [true, false, false])
    }

    @Test("a hand-over moves the tap and its demand to the successor; a close tells it")
    func handOverAndClose() {
        let (producer, _) = DynacastTests.simulcast()
        let successor = Producer(id: "p:video2", kind: .video, layers: ["q", "h", "f"]) { _ in }
        let tap = Recorder()
        producer.attach(tap: tap)
        producer.setDemand([false, false, true], behind: tap)
        producer.handOver(to: successor)
        #expect(tap.successors == ["p:video2"])
        #expect(successor.layersInUse() == [false, false, true], "the demand came along")
        Self.send(producer, layer: 0, ssrc: 0x10, sequence: 1)
        Self.send(successor, layer: 0, ssrc: 0x20, sequence: 1)
        #expect(tap.packets.map(\.ssrc) == [0x20], "only the successor's packets")
        successor.close()
        #expect(tap.closed == 1)
        producer.close()
        #expect(tap.closed == 1, "the old producer no longer has it")
    }
}
