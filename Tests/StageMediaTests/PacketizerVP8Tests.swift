import Testing
@testable import StageMedia
import StageWire

/// RFC 7741 §4: VP8 packetization, and the round trip through the depacketizer.
@Suite("VP8 packetizer (RFC 7741 §4)")
struct PacketizerVP8Tests {
    @Test("§4.2 descriptor: X=1, I=1, M=1 15-bit PictureID, S=1 on the first payload only, N=0, PID=0")
    func descriptorFields() throws {
        var packetizer = VP8Packetizer(maxPayloadSize: 100, initialPictureID: 0x1234)
        let payloads = packetizer.packetize(RTPTestMedia.deltaFrame(size: 250))
        #expect(payloads.count == 3)
        for (index, payload) in payloads.enumerated() {
            #expect(payload.count <= 100)
            #expect(payload[0] == (index == 0 ? 0x90 : 0x80))  // X, S; N = 0, PID = 0
            #expect(payload[1] == 0x80)  // I only
            #expect(payload[2] == 0x80 | 0x12 && payload[3] == 0x34)  // M = 1, 15-bit ID
            let (descriptor, size) = try VP8PayloadDescriptor.parse(payload)
            #expect(size == VP8Packetizer.descriptorSize)
            #expect(descriptor == VP8PayloadDescriptor(startOfPartition: index == 0, pictureID: 0x1234, longPictureID: true))
        }
    }

    @Test("slices are balanced: sizes differ by at most one byte")
    func balancedSlices() {
        var packetizer = VP8Packetizer(maxPayloadSize: 1200, initialPictureID: 0)
        let sizes = packetizer.packetize(RTPTestMedia.deltaFrame(size: 2393)).map { $0.count - 4 }
        #expect(sizes == [798, 798, 797])
    }

    @Test("§4.2 PictureID advances per frame and wraps at 0x7FFF; an empty frame sends nothing")
    func pictureIDWraps() throws {
        var packetizer = VP8Packetizer(initialPictureID: 0x7FFE)
        var ids: [UInt16?] = []
        for _ in 0..<3 {
            let payload = try #require(packetizer.packetize([0x11, 0, 0, 1]).first)
            ids.append(try VP8PayloadDescriptor.parse(payload).descriptor.pictureID)
        }
        #expect(ids == [0x7FFE, 0x7FFF, 0])
        #expect(packetizer.packetize([]).isEmpty)
        #expect(packetizer.nextPictureID == 1)
        #expect(VP8Packetizer(initialPictureID: 0xFFFF).nextPictureID == 0x7FFF)
        #expect(VP8Packetizer(maxPayloadSize: 2).maxPayloadSize == 5)
    }

    @Test("packetize → depacketize round trip across the PictureID wrap", arguments: [1, 1199, 1200, 5000, 100_000])
    func roundTrip(size: Int) throws {
        var sender = VP8TestSender(maxPayloadSize: VP8Packetizer.defaultMaxPayloadSize, firstSequenceNumber: 65_530, pictureID: 0x7FFE)
        for (index, pictureID) in [UInt16(0x7FFE), 0x7FFF, 0].enumerated() {
            let frame = index == 0 && size >= 10 ? RTPTestMedia.keyframe(size: size, width: 1280, height: 720) : RTPTestMedia.deltaFrame(size: size, seed: index)
            let expectedFrame = Array(frame.prefix(size))
            let packets = sender.send(expectedFrame)
            #expect(packets.count == (size + 1195) / 1196)
            #expect(packets.allSatisfy { $0.payload.count <= 1200 })
            let assembled = try VP8Depacketizer.assemble(packets)
            #expect(assembled.data == expectedFrame)
            #expect(assembled.pictureID == pictureID)
            #expect(assembled.packetCount == packets.count)
            #expect(assembled.timestamp == packets[0].timestamp)
            let isKey = index == 0 && size >= 10
            #expect(assembled.isKeyframe == isKey)
            #expect(assembled.width == (isKey ? 1280 : nil) && assembled.height == (isKey ? 720 : nil))
        }
    }

    @Test("packets written by RTPPacketWriter parse back to the same frame")
    func throughRTPPacketWriter() throws {
        var packetizer = VP8Packetizer(initialPictureID: 7)
        var writer = RTPPacketWriter(ssrc: 0xCAFE, payloadType: 96, clockRate: RTPPacketWriter.videoClockRate, initialSequenceNumber: 65_535, timestampOffset: 10)
        let frame = RTPTestMedia.keyframe(size: 3000)
        let timestamp = writer.timestamp(captureTimeMicros: 2_000_000)
        let packets = writer.packets(payloads: packetizer.packetize(frame), timestamp: timestamp)
        let received = try packets.map { try ReceivedRTPPacket(parsing: $0) }
        #expect(received.map(\.sequenceNumber) == [65_535, 0, 1])
        #expect(received.map(\.marker) == [false, false, true])
        #expect(received.allSatisfy { $0.timestamp == 180_010 })
        #expect(try VP8Depacketizer.assemble(received).data == frame)
    }
}
