import StageWire
import Testing
@testable import StageSFU

/// Answering a subscriber's NACKs: RTX (RFC 4588) when negotiated, one cache per layer, a
/// one-second window, and packets from before a layer switch.
struct RetransmissionTests {
    static let start = PacketTime.now

    static func consumer(of producer: Producer, sink: RecordingTransport) -> Consumer {
        Consumer(id: "c", producer: producer, outgoingSSRC: 0xC0FFEE, payloadType: 100, transport: sink)
    }

    /// A VP8 packet: a keyframe start (S=1, PID 0, P=0) or a delta frame's middle.
    static func vp8(ssrc: UInt32, sequence: UInt16, keyframe: Bool = false) -> [UInt8] {
        RTPMungerTests.packet(ssrc: ssrc, sequence: sequence, timestamp: UInt32(sequence) * 3000).dropLast()
            + (keyframe ? [0x10, 0x00, 0x9D, 0x01, 0x2A] : [0x00, 0x01, 0x02, 0x03, UInt8(truncatingIfNeeded: sequence)])
    }

    static func receive(_ producer: Producer, _ packet: [UInt8], layer: Int = 0, at ms: Int = 0) {
        var bytes = packet
        bytes.withUnsafeMutableBytes {
            producer.receive($0, fields: RTPFixedFields(UnsafeRawBufferPointer($0)), layer: layer, now: start + .milliseconds(ms))
        }
    }

    @Test("RFC 4588 §4: with RTX negotiated a NACKed packet goes out on the RTX SSRC and PT, its own sequence, the OSN first")
    func answersWithRTX() throws {
        let sink = RecordingTransport()
        let producer = Producer(id: "p:video", kind: .video) { _ in }
        let consumer = Self.consumer(of: producer, sink: sink)
        consumer.enableRetransmission(.init(ssrc: 0xBEEF, payloadType: 97))
        for sequence in UInt16(100)..<110 { Self.receive(producer, Self.vp8(ssrc: 0x1234, sequence: sequence)) }
        let forwarded = sink.packets
        #expect(consumer.retransmit([103, 105], now: Self.start) == 2)
        let resent = sink.packets.dropFirst(forwarded.count).map { $0 }
        #expect(resent.count == 2)
        for (packet, outgoing) in zip(resent, [UInt16(103), 105]) {
            let (header, payload) = try RTPHeader.parse(packet)
            #expect(header.ssrc == 0xBEEF && header.payloadType == 97)
            #expect(Array(packet[payload.prefix(2)]) == [UInt8(outgoing >> 8), UInt8(outgoing & 0xFF)])
            let original = try #require(forwarded.first { RTPFixedFields.peek($0).sequenceNumber == outgoing })
            let originalParse = try RTPHeader.parse(original)
            #expect(Array(packet[payload.dropFirst(2)]) == Array(original[originalParse.payload]))
            #expect(header.timestamp == originalParse.header.timestamp)
        }
        let sequences = try resent.map { try RTPHeader.parse($0).header.sequenceNumber }
        #expect(sequences[1] == sequences[0] &+ 1, "the RTX stream numbers its own packets")
    }

    @Test("answers to NACKs go through the transport's sendRepair (past the server's pacer), with and without RTX; media does not")
    func repairsHaveTheirOwnPath() {
        for rtx in [false, true] {
            let sink = RecordingTransport(repairsApart: true)
            let producer = Producer(id: "p:video", kind: .video) { _ in }
            let consumer = Self.consumer(of: producer, sink: sink)
            if rtx { consumer.enableRetransmission(.init(ssrc: 0xBEEF, payloadType: 97)) }
            for sequence in UInt16(100)..<105 { Self.receive(producer, Self.vp8(ssrc: 0x1234, sequence: sequence)) }
            let outgoing = RTPFixedFields.peek(sink.packets[2]).sequenceNumber
            #expect(consumer.retransmit([outgoing], now: Self.start) == 1)
            #expect(sink.packets.count == 5, "media only on send")
            #expect(sink.repairs.count == 1)
            #expect(RTPFixedFields.peek(sink.repairs[0]).ssrc == (rtx ? 0xBEEF : 0xC0FFEE))
        }
    }

    @Test("a packet older than the cache's one-second window is not resent")
    func windowIsOneSecond() {
        let sink = RecordingTransport()
        let producer = Producer(id: "p:video", kind: .video) { _ in }
        let consumer = Self.consumer(of: producer, sink: sink)
        Self.receive(producer, Self.vp8(ssrc: 0x1234, sequence: 7), at: 0)
        #expect(consumer.retransmit([7], now: Self.start + .milliseconds(900)) == 1)
        #expect(consumer.retransmit([7], now: Self.start + .milliseconds(1100)) == 0)
    }

    @Test("simulcast layers have their own caches: equal sequence numbers on two layers do not evict each other")
    func layersDoNotEvictEachOther() {
        let sink = RecordingTransport()
        let producer = Producer(id: "p:video", kind: .video, layers: ["q", "f"]) { _ in }
        let consumer = Self.consumer(of: producer, sink: sink)
        consumer.setPreferredLayer(1)
        // Both layers number from 500: with one shared cache, q's packet would replace f's slot.
        Self.receive(producer, Self.vp8(ssrc: 0xF, sequence: 500, keyframe: true), layer: 1)
        Self.receive(producer, Self.vp8(ssrc: 0xA, sequence: 500, keyframe: true), layer: 0)
        Self.receive(producer, Self.vp8(ssrc: 0xF, sequence: 501), layer: 1)
        Self.receive(producer, Self.vp8(ssrc: 0xA, sequence: 501), layer: 0)
        #expect(sink.packets.count == 2)
        let first = RTPFixedFields.peek(sink.packets[0]).sequenceNumber
        #expect(consumer.retransmit([first], now: Self.start) == 1)
        #expect(sink.packets.last.map { Array($0.suffix(5)) } == Array(Self.vp8(ssrc: 0xF, sequence: 500, keyframe: true).suffix(5)))
    }

    @Test("a NACK for a packet sent before a layer switch is answered with that layer's packet")
    func nackAcrossALayerSwitch() {
        let sink = RecordingTransport()
        let producer = Producer(id: "p:video", kind: .video, layers: ["q", "f"]) { _ in }
        let consumer = Self.consumer(of: producer, sink: sink)
        consumer.setPreferredLayer(0)
        Self.receive(producer, Self.vp8(ssrc: 0xA, sequence: 10, keyframe: true), layer: 0)
        Self.receive(producer, Self.vp8(ssrc: 0xA, sequence: 11), layer: 0)
        consumer.setPreferredLayer(1)
        Self.receive(producer, Self.vp8(ssrc: 0xF, sequence: 900, keyframe: true), layer: 1)
        Self.receive(producer, Self.vp8(ssrc: 0xF, sequence: 901), layer: 1)
        let outgoing = sink.packets.map { RTPFixedFields.peek($0) }
        #expect(outgoing.map(\.ssrc) == Array(repeating: 0xC0FFEE, count: 4))
        #expect(consumer.retransmit([outgoing[1].sequenceNumber, outgoing[3].sequenceNumber], now: Self.start) == 2)
        let resent = sink.packets.suffix(2)
        #expect(resent.map { Array($0.suffix(5)) } == [Array(Self.vp8(ssrc: 0xA, sequence: 11).suffix(5)),
                                                      Array(Self.vp8(ssrc: 0xF, sequence: 901).suffix(5))])
        #expect(resent.map { RTPFixedFields.peek($0) } == [outgoing[1], outgoing[3]], "each resent as the packet it was")
    }
}
