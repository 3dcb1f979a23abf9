import StageWire
import Testing

/// RFC 4588 §4: wrapping a packet as RTX and unwrapping it back, in caller-owned buffers.
@Suite struct RTPRetransmissionTests {
    @Test("RFC 4588 §4: wrap writes the RTX SSRC, PT and seq, the OSN, then the original payload; unwrap restores the original")
    func roundTrip() throws {
        let original = MediaFixtures.chromeVP8Keyframe
        let (header, payload) = try RTPHeader.parse(original)
        var output = [UInt8](repeating: 0, count: 1500)
        let length = try #require(original.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { out in
                RTPRetransmission.wrap(source, payload: payload, into: out, ssrc: 0xAABB_CCDD, payloadType: 97,
                                       sequenceNumber: 5, originalSequence: 0xBEEF, timestamp: 1234)
            }
        })
        #expect(length == original.count + 2)
        var rtx = Array(output[..<length])
        let (rtxHeader, rtxPayload) = try RTPHeader.parse(rtx)
        #expect(rtxHeader.ssrc == 0xAABB_CCDD && rtxHeader.payloadType == 97 && rtxHeader.sequenceNumber == 5)
        #expect(rtxHeader.timestamp == 1234 && rtxHeader.marker == header.marker && rtxHeader.csrcs == header.csrcs)
        #expect(Array(rtx[rtxPayload.prefix(2)]) == [0xBE, 0xEF])
        #expect(Array(rtx[rtxPayload.dropFirst(2)]) == Array(original[payload]))

        let range = try #require(rtx.withUnsafeMutableBytes { packet in
            RTPRetransmission.unwrap(packet, payload: rtxPayload, originalSSRC: header.ssrc, originalPayloadType: header.payloadType)
        })
        let restored = Array(rtx[range])
        var expected = header
        expected.sequenceNumber = 0xBEEF
        expected.timestamp = 1234
        let (restoredHeader, restoredPayload) = try RTPHeader.parse(restored)
        #expect(restoredHeader == expected)
        #expect(Array(restored[restoredPayload]) == Array(original[payload]))
    }

    @Test("RFC 4588 §4: the original's padding is not copied; an RTX packet's own padding survives unwrapping")
    func padding() throws {
        // V=2 P=1, PT 96, seq 1, ts 2, SSRC 3, payload 0xAA 0xBB, then 3 bytes of padding.
        let padded: [UInt8] = [0xA0, 0x60, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0xAA, 0xBB, 0, 0, 3]
        let (_, payload) = try RTPHeader.parse(padded)
        #expect(payload == 12..<14)
        var output = [UInt8](repeating: 0, count: 64)
        let length = try #require(padded.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { out in
                RTPRetransmission.wrap(source, payload: payload, into: out, ssrc: 9, payloadType: 97, sequenceNumber: 1,
                                       originalSequence: 1, timestamp: 2)
            }
        })
        #expect(Array(output[..<length]) == [0x80, 0x61, 0, 1, 0, 0, 0, 2, 0, 0, 0, 9, 0, 1, 0xAA, 0xBB])

        // An RTX packet that is itself padded: OSN 7, payload 0xCC, 2 bytes of padding.
        var rtx: [UInt8] = [0xA0, 0x61, 0, 9, 0, 0, 0, 2, 0, 0, 0, 9, 0, 7, 0xCC, 0, 2]
        let rtxPayload = try RTPHeader.parse(rtx).payload
        let range = try #require(rtx.withUnsafeMutableBytes { RTPRetransmission.unwrap($0, payload: rtxPayload, originalSSRC: 3, originalPayloadType: 96) })
        let restored = Array(rtx[range])
        let (header, restoredPayload) = try RTPHeader.parse(restored)
        #expect(header.padding && header.sequenceNumber == 7 && header.ssrc == 3 && header.payloadType == 96)
        #expect(Array(restored[restoredPayload]) == [0xCC])
    }

    struct Refused: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var testDescription: String { name }
    }

    @Test("RFC 4588 §4: an RTX packet without a whole OSN has nothing to restore (padding-only probes)", arguments: [
        Refused(name: "no payload", bytes: [0x80, 0x61, 0, 1, 0, 0, 0, 2, 0, 0, 0, 9]),
        Refused(name: "one byte of OSN", bytes: [0x80, 0x61, 0, 1, 0, 0, 0, 2, 0, 0, 0, 9, 0x01]),
        Refused(name: "padding only (a probe)", bytes: [0xA0, 0x61, 0, 1, 0, 0, 0, 2, 0, 0, 0, 9, 0, 0, 0, 4]),
    ])
    func refused(_ row: Refused) throws {
        var bytes = row.bytes
        let payload = try RTPHeader.parse(bytes).payload
        let before = bytes
        let range = bytes.withUnsafeMutableBytes { RTPRetransmission.unwrap($0, payload: payload, originalSSRC: 3, originalPayloadType: 96) }
        #expect(range == nil)
        #expect(bytes == before)
    }

    @Test("wrap refuses an output buffer too small for header, OSN and payload")
    func outputTooSmall() throws {
        let original = MediaFixtures.chromeVP8Keyframe
        let payload = try RTPHeader.parse(original).payload
        var output = [UInt8](repeating: 0, count: original.count + 1)
        let length = original.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { out in
                RTPRetransmission.wrap(source, payload: payload, into: out, ssrc: 1, payloadType: 97, sequenceNumber: 1,
                                       originalSequence: 1, timestamp: 1)
            }
        }
        #expect(length == nil)
    }
}
