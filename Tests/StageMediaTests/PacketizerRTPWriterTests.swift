import Testing
@testable import StageMedia
import StageWire

/// RFC 3550 §5.1 stream stamping, RFC 8285 extensions on outgoing packets, RFC 7587 Opus.
@Suite("RTP packet writer and Opus packetizer")
struct PacketizerRTPWriterTests {
    @Test("§5.1 header fields; sequence number wraps at 2^16; counts for the Sender Report")
    func headerFields() throws {
        var writer = RTPPacketWriter(ssrc: 0x1122_3344, payloadType: 0xE0, clockRate: 90_000, initialSequenceNumber: 65_534, timestampOffset: 0)
        #expect(writer.payloadType == 0x60)
        let first = writer.packet(payload: [1, 2, 3], timestamp: 77, marker: true)
        #expect(first == [0x80, 0xE0, 0xFF, 0xFE, 0, 0, 0, 77, 0x11, 0x22, 0x33, 0x44, 1, 2, 3])
        _ = writer.packet(payload: [4], timestamp: 77, marker: false)
        let (header, payload) = try RTPHeader.parse(writer.packet(payload: [5, 6], timestamp: 78, marker: false))
        #expect(header.sequenceNumber == 0 && header.timestamp == 78 && !header.marker && header.ssrc == 0x1122_3344)
        #expect(payload == 12..<14)
        #expect(writer.nextSequenceNumber == 1)
        #expect(writer.packetCount == 3 && writer.octetCount == 6)
        let report = writer.senderReport(ntpTime: 0x1234_5678_9ABC_DEF0, nowMicros: 1_000_000)
        #expect(report == RTCPSenderReport(ssrc: 0x1122_3344, ntpTime: 0x1234_5678_9ABC_DEF0, rtpTime: 90_000, packetCount: 3, octetCount: 6))
    }

    @Test("timestamps: offset + capture time × clock rate, 90 kHz video and 48 kHz audio, wrapping mod 2^32")
    func timestampMapping() {
        let video = RTPPacketWriter(ssrc: 1, payloadType: 96, clockRate: RTPPacketWriter.videoClockRate, timestampOffset: 1000)
        #expect(video.timestamp(captureTimeMicros: 0) == 1000)
        #expect(video.timestamp(captureTimeMicros: 33_333) == 1000 + 2999)
        #expect(video.timestamp(captureTimeMicros: 1_000_000) == 91_000)
        let audio = RTPPacketWriter(ssrc: 2, payloadType: 111, clockRate: RTPPacketWriter.audioClockRate, timestampOffset: UInt32.max)
        #expect(audio.timestamp(captureTimeMicros: 20_000) == 959)
        // A capture clock of ~6.5 years in µs would overflow a naive 64-bit product.
        let late = UInt64(250_000_000_000_000)
        let expected = UInt32(truncatingIfNeeded: (late / 1_000_000) * 90_000) &+ 1000
        #expect(video.timestamp(captureTimeMicros: late) == expected)
    }

    @Test("RFC 8285/8852: mid and rid one-byte extensions on the packets of a frame")
    func extensions() throws {
        var writer = RTPPacketWriter(ssrc: 9, payloadType: 96, clockRate: 90_000, initialSequenceNumber: 1, timestampOffset: 0)
        var block = RTPExtensionBlockBuilder()
        try block.set(id: 1, RTPIdentifierExtension(text: "0"))
        try block.set(id: 10, RTPIdentifierExtension(text: "h"))
        let packets = writer.packets(payloads: [[0x90, 1], [0x80, 2]], timestamp: 5, extensions: block)
        for bytes in packets {
            let packet = try RTPPacket(parsing: bytes)
            #expect(packet.header.extensionProfile == RTPExtensionForm.oneByteProfile)
            #expect(try packet.extensionValue(RTPIdentifierExtension.self, id: 1)?.text == "0")
            #expect(try packet.extensionValue(RTPIdentifierExtension.self, id: 10)?.text == "h")
        }
        #expect(try RTPPacket(parsing: packets[1]).payload == [0x80, 2])
        #expect(try RTPPacket(parsing: packets[1]).header.marker)
        // An empty builder writes no extension at all.
        let plain = writer.packet(payload: [1], timestamp: 5, marker: false, extensions: RTPExtensionBlockBuilder())
        #expect(plain.count == 13 && plain[0] == 0x80)
    }

    @Test("RFC 7587 §4: one Opus packet per payload, unchanged; 960 ticks per 20 ms; marker on talkspurt start")
    func opus() {
        var opus = OpusPacketizer(initialTimestamp: UInt32.max - 959)
        let first = opus.packetize([0xFC, 1, 2], startOfTalkspurt: true)
        let second = opus.packetize([0xFC, 3])
        #expect(first == OpusPacketizer.Payload(payload: [0xFC, 1, 2], timestamp: UInt32.max - 959, marker: true))
        #expect(second.timestamp == 0 && !second.marker && second.payload == [0xFC, 3])
        opus.skip(samplesPerChannel: 960 * 5)
        #expect(opus.nextTimestamp == 960 * 6)
        #expect(opus.packetize([0xF8], samplesPerChannel: 480).timestamp == 5760)
        #expect(opus.nextTimestamp == 6240)
        #expect(OpusPacketizer.timestampIncrement(durationMicros: 20_000) == 960)
        #expect(OpusPacketizer.timestampIncrement(durationMicros: 60_000) == 2880)
    }
}
