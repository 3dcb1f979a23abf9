import Testing
@testable import StageMedia
import StageWire

/// RFC 7741 §4.2: the temporal layer fields (TL0PICIDX, TID, Y, N) of frames from an encoder
/// with temporal layers.
@Suite("VP8 packetizer temporal layers (RFC 7741 §4.2)")
struct PacketizerVP8TemporalTests {
    static func frame(tid: UInt8?, sync: Bool = false, nonReference: Bool = false, size: Int = 40) -> EncodedVideoFrame {
        EncodedVideoFrame(data: RTPTestMedia.deltaFrame(size: size, seed: size), isKeyframe: false, width: 320, height: 180,
                          captureTimeMicros: 0, temporalLayerID: tid, layerSync: sync, nonReferenceFrame: nonReference)
    }

    @Test("every descriptor of a frame carries L=1, T=1, TL0PICIDX, TID, Y and N; parse reads them back")
    func fieldsWrittenAndParsed() throws {
        var packetizer = VP8Packetizer(maxPayloadSize: 100, initialPictureID: 0x1234, initialTL0PicIdx: 7)
        _ = packetizer.packetize(Self.frame(tid: 0))  // TL0PICIDX 7
        let payloads = packetizer.packetize(Self.frame(tid: 2, sync: true, nonReference: true, size: 250))
        #expect(payloads.count == 3)
        for (index, payload) in payloads.enumerated() {
            #expect(payload.count <= 100)
            #expect(payload[0] == (index == 0 ? 0xB0 : 0xA0))  // X, N; S on the first
            #expect(payload[1] == 0xE0)  // I, L, T
            #expect(payload[2] == 0x80 | 0x12 && payload[3] == 0x35)
            #expect(payload[4] == 7)  // TL0PICIDX of the TL0 frame before
            #expect(payload[5] == 0xA0)  // TID 2, Y
            let (descriptor, size) = try VP8PayloadDescriptor.parse(payload)
            #expect(size == VP8Packetizer.temporalDescriptorSize)
            #expect(descriptor == VP8PayloadDescriptor(nonReferenceFrame: true, startOfPartition: index == 0, pictureID: 0x1235,
                                                       longPictureID: true, tl0PicIdx: 7, temporalLayerID: 2, layerSync: true))
        }
    }

    @Test("TL0PICIDX advances on TL0 frames only, higher layers repeat it, and it wraps 255 → 0")
    func tl0PicIdxRuns() throws {
        var packetizer = VP8Packetizer(initialTL0PicIdx: 254)
        var seen: [UInt8?] = []
        for tid: UInt8 in [0, 2, 1, 2, 0, 2, 1, 2, 0, 2] {
            let payload = try #require(packetizer.packetize(Self.frame(tid: tid)).first)
            let descriptor = try VP8PayloadDescriptor.parse(payload).descriptor
            #expect(descriptor.temporalLayerID == tid)
            seen.append(descriptor.tl0PicIdx)
        }
        #expect(seen == [254, 254, 254, 254, 255, 255, 255, 255, 0, 0])
        #expect(packetizer.nextTL0PicIdx == 1)
        #expect(packetizer.packetize(EncodedVideoFrame(data: [], isKeyframe: false, width: 1, height: 1, captureTimeMicros: 0,
                                                       temporalLayerID: 0)).isEmpty)
        #expect(packetizer.nextTL0PicIdx == 1, "an empty frame sends nothing and counts nothing")
    }

    @Test("a frame without a temporal layer packetizes byte for byte as the raw bytes do")
    func withoutTemporalUnchanged() {
        var fromFrame = VP8Packetizer(maxPayloadSize: 100, initialPictureID: 9, initialTL0PicIdx: 3)
        var fromBytes = VP8Packetizer(maxPayloadSize: 100, initialPictureID: 9, initialTL0PicIdx: 3)
        let frame = Self.frame(tid: nil, size: 250)
        let payloads = fromFrame.packetize(frame)
        #expect(payloads == fromBytes.packetize(frame.data))
        #expect(payloads.allSatisfy { $0[1] == 0x80 && $0.count <= 100 })
        #expect(fromFrame.nextTL0PicIdx == 3)
    }

    @Test("temporal payloads depacketize to the same frame, slices balanced within the payload size")
    func roundTrip() throws {
        var packetizer = VP8Packetizer(maxPayloadSize: 1200, initialPictureID: 0x7FFF)
        let frame = Self.frame(tid: 1, sync: true, size: 2393)
        let payloads = packetizer.packetize(frame)
        #expect(payloads.map { $0.count - VP8Packetizer.temporalDescriptorSize } == [798, 798, 797])
        let packets = payloads.enumerated().map { index, payload in
            ReceivedRTPPacket(sequenceNumber: UInt16(100 + index), timestamp: 3000, marker: index == payloads.count - 1, payload: payload)
        }
        let assembled = try VP8Depacketizer.assemble(packets)
        #expect(assembled.data == frame.data)
        #expect(assembled.pictureID == 0x7FFF)
    }
}
