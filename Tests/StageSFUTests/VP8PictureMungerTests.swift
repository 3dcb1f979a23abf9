import StageWire
import Testing
@testable import StageSFU

/// PictureID and TL0PICIDX continue across simulcast layer switches (RFC 7741 §4.2).
struct VP8PictureMungerTests {
    /// A VP8 payload: the descriptor, then two bytes of "frame".
    static func payload(pictureID: UInt16?, long: Bool = true, tl0: UInt8? = nil) -> [UInt8] {
        VP8PayloadDescriptor(startOfPartition: true, pictureID: pictureID, longPictureID: long, tl0PicIdx: tl0,
                             temporalLayerID: tl0 == nil ? nil : 0).serialized() + [0xAB, 0xCD]
    }

    static func fields(_ bytes: [UInt8]) throws -> (pictureID: UInt16?, tl0: UInt8?, rest: [UInt8]) {
        let (descriptor, size) = try bytes.withUnsafeBytes { try VP8PayloadDescriptor.parse($0) }
        return (descriptor.pictureID, descriptor.tl0PicIdx, Array(bytes[size...]))
    }

    static func rewrite(_ munger: inout VP8PictureMunger, _ bytes: [UInt8], source: UInt32) -> [UInt8] {
        var out = bytes
        out.withUnsafeMutableBytes { munger.rewrite($0, source: source) }
        return out
    }

    @Test("the first source keeps its numbering; a switch continues one after the newest sent; the source's later packets follow")
    func splices() throws {
        var munger = VP8PictureMunger()
        for (pictureID, tl0) in [(UInt16(100), UInt8(5)), (101, 6)] {
            let out = try Self.fields(Self.rewrite(&munger, Self.payload(pictureID: pictureID, tl0: tl0), source: 0xA))
            #expect(out.pictureID == pictureID && out.tl0 == tl0)
        }
        // The new layer numbers from far away (and backwards: 30,000 is 2,868 behind 100 in 15 bits).
        let first = try Self.fields(Self.rewrite(&munger, Self.payload(pictureID: 30_000, tl0: 200), source: 0xF))
        #expect(first.pictureID == 102 && first.tl0 == 7)
        #expect(first.rest == [0xAB, 0xCD], "the frame is untouched")
        let second = try Self.fields(Self.rewrite(&munger, Self.payload(pictureID: 30_001, tl0: 201), source: 0xF))
        #expect(second.pictureID == 103 && second.tl0 == 8)
        // Back to the first layer: it continues too, not where it left off.
        let back = try Self.fields(Self.rewrite(&munger, Self.payload(pictureID: 140, tl0: 44), source: 0xA))
        #expect(back.pictureID == 104 && back.tl0 == 9)
    }

    @Test("across the 15-bit wrap, and a 7-bit PictureID stays 7 bits")
    func widths() throws {
        var munger = VP8PictureMunger()
        _ = Self.rewrite(&munger, Self.payload(pictureID: 0x7FFF), source: 0xA)
        let wrapped = try Self.fields(Self.rewrite(&munger, Self.payload(pictureID: 5), source: 0xF))
        #expect(wrapped.pictureID == 0)
        var short = VP8PictureMunger()
        _ = Self.rewrite(&short, Self.payload(pictureID: 126, long: false), source: 0xA)
        _ = Self.rewrite(&short, Self.payload(pictureID: 127, long: false), source: 0xA)
        let switched = Self.rewrite(&short, Self.payload(pictureID: 50, long: false), source: 0xF)
        #expect(try Self.fields(switched).pictureID == 0, "127 + 1 in 7 bits")
        #expect(switched.count == Self.payload(pictureID: 50, long: false).count, "still one octet of PictureID")
    }

    @Test("a retransmission is rewritten with its source's offsets, and changes nothing")
    func retransmission() throws {
        var munger = VP8PictureMunger()
        _ = Self.rewrite(&munger, Self.payload(pictureID: 100), source: 0xA)
        _ = Self.rewrite(&munger, Self.payload(pictureID: 9_000), source: 0xF)
        var again = Self.payload(pictureID: 9_000)
        again.withUnsafeMutableBytes { munger.rewriteRetransmission($0, source: 0xF) }
        #expect(try Self.fields(again).pictureID == 101)
        var old = Self.payload(pictureID: 100)
        old.withUnsafeMutableBytes { munger.rewriteRetransmission($0, source: 0xA) }
        #expect(try Self.fields(old).pictureID == 100, "sent before the switch, as it was")
        let next = try Self.fields(Self.rewrite(&munger, Self.payload(pictureID: 9_001), source: 0xF))
        #expect(next.pictureID == 102, "the retransmissions moved nothing")
    }

    @Test("payloads without the fields, or cut short, are left as they are", arguments: [
        [UInt8](), [0x90], [0x90, 0x80], [0x90, 0x80, 0x81], [0x10, 0x9D, 0x01, 0x2A],
    ])
    func leftAlone(bytes: [UInt8]) {
        var munger = VP8PictureMunger()
        #expect(Self.rewrite(&munger, bytes, source: 0xA) == bytes)
        #expect(Self.rewrite(&munger, bytes, source: 0xF) == bytes)
    }

    @Test("through a Consumer: a simulcast switch and a NACK across it keep the PictureID sequence")
    func throughAConsumer() throws {
        let sink = RecordingTransport()
        let producer = Producer(id: "p:video", kind: .video, layers: ["q", "f"]) { _ in }
        let consumer = RetransmissionTests.consumer(of: producer, sink: sink)
        consumer.enableRetransmission(.init(ssrc: 0xBEEF, payloadType: 97))
        consumer.setPreferredLayer(0)
        func packet(ssrc: UInt32, sequence: UInt16, pictureID: UInt16, keyframe: Bool) -> [UInt8] {
            let vp8: [UInt8] = keyframe ? [0x9D, 0x01, 0x2A, 0x40, 0x01, 0xB4, 0x00] : [0x01, 0x02, 0x03]
            // P = 0 in the VP8 payload header's first octet marks a keyframe.
            let header: [UInt8] = keyframe ? [0x10] : [0x11]
            let descriptor = VP8PayloadDescriptor(startOfPartition: true, pictureID: pictureID).serialized()
            return RTPMungerTests.packet(ssrc: ssrc, sequence: sequence, timestamp: UInt32(sequence) * 3000).dropLast() + descriptor + header + vp8
        }
        RetransmissionTests.receive(producer, packet(ssrc: 0xA, sequence: 10, pictureID: 500, keyframe: true), layer: 0)
        RetransmissionTests.receive(producer, packet(ssrc: 0xA, sequence: 11, pictureID: 501, keyframe: false), layer: 0)
        consumer.setPreferredLayer(1)
        RetransmissionTests.receive(producer, packet(ssrc: 0xF, sequence: 900, pictureID: 20_000, keyframe: true), layer: 1)
        RetransmissionTests.receive(producer, packet(ssrc: 0xF, sequence: 901, pictureID: 20_001, keyframe: false), layer: 1)
        let pictureIDs = try sink.packets.map { bytes in
            let payload = try RTPHeader.parse(bytes).payload
            return try bytes.withUnsafeBytes { try VP8PayloadDescriptor.parse(UnsafeRawBufferPointer(rebasing: $0[payload])).descriptor.pictureID }
        }
        #expect(pictureIDs == [500, 501, 502, 503])
        let outgoing = RTPFixedFields.peek(sink.packets[3]).sequenceNumber
        #expect(consumer.retransmit([outgoing], now: RetransmissionTests.start) == 1)
        let rtx = try #require(sink.packets.last)
        let payload = try RTPHeader.parse(rtx).payload
        let resent = try rtx.withUnsafeBytes {
            try VP8PayloadDescriptor.parse(UnsafeRawBufferPointer(rebasing: $0[(payload.lowerBound + 2)...])).descriptor.pictureID
        }
        #expect(resent == 503, "the RTX copy carries the PictureID the packet was first sent with")
    }

    @Test("the copy a consumer rewrites may have another extension block than the packet (the server writes its own): the descriptor is found in the copy")
    func copyWithAnotherExtensionBlock() throws {
        let producer = Producer(id: "p:video", kind: .video, layers: ["q", "f"]) { _ in }
        // Like ForwardedPacketWriter: the publisher's extension block (8 bytes of elements) is
        // dropped from the copy before the consumer rewrites it.
        let copies = RecordingTransport { packet in
            let payload = try! RTPHeader.parse(packet).payload
            var copy = Array(packet[..<RTPHeader.fixedSize]) + Array(packet[payload])
            copy[0] &= ~0x10
            return copy
        }
        let consumer = Consumer(id: "c", producer: producer, outgoingSSRC: 0xC0FFEE, payloadType: 100, transport: copies)
        consumer.setPreferredLayer(0)
        func packet(ssrc: UInt32, sequence: UInt16, pictureID: UInt16, keyframe: Bool) -> [UInt8] {
            var header = RTPMungerTests.packet(ssrc: ssrc, sequence: sequence, timestamp: UInt32(sequence) * 3000).dropLast()
            header[0] |= 0x10
            let extensionBlock: [UInt8] = [0xBE, 0xDE, 0x00, 0x02, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90]
            let descriptor = VP8PayloadDescriptor(startOfPartition: true, pictureID: pictureID).serialized()
            return Array(header) + extensionBlock + descriptor + (keyframe ? [0x10, 0x9D, 0x01, 0x2A] : [0x11, 0x01, 0x02, 0x03])
        }
        func receive(_ bytes: [UInt8], layer: Int) {
            var bytes = bytes
            bytes.withUnsafeMutableBytes {
                producer.receive($0, fields: RTPFixedFields(UnsafeRawBufferPointer($0)), layer: layer, payloadOffset: 24, now: RetransmissionTests.start)
            }
        }
        receive(packet(ssrc: 0xA, sequence: 10, pictureID: 500, keyframe: true), layer: 0)
        consumer.setPreferredLayer(1)
        receive(packet(ssrc: 0xF, sequence: 900, pictureID: 20_000, keyframe: true), layer: 1)
        receive(packet(ssrc: 0xF, sequence: 901, pictureID: 20_001, keyframe: false), layer: 1)
        let forwarded = try copies.packets.map { bytes in
            let payload = try RTPHeader.parse(bytes).payload
            let (descriptor, size) = try bytes.withUnsafeBytes { try VP8PayloadDescriptor.parse(UnsafeRawBufferPointer(rebasing: $0[payload])) }
            return (descriptor.pictureID, Array(bytes[(payload.lowerBound + size)...]))
        }
        #expect(forwarded.map(\.0) == [500, 501, 502])
        #expect(forwarded.map(\.1) == [[0x10, 0x9D, 0x01, 0x2A], [0x10, 0x9D, 0x01, 0x2A], [0x11, 0x01, 0x02, 0x03]], "the frames untouched")
    }
}
