import StageWire
import Testing

/// RFC 3550 §6.1 compound packets: iteration, validation, unknown types.
@Suite struct RTCPCompoundTests {
    static let receiverReport: [UInt8] = [0x80, 0xC9, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01]
    static let pli: [UInt8] = [0x81, 0xCE, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02]
    /// Transport-cc whose status is the reserved symbol 11: frames fine, does not decode.
    static let reservedTWCC: [UInt8] = [
        0x8F, 0xCD, 0x00, 0x05, 0, 0, 0, 1, 0, 0, 0, 2,
        0x00, 0x00, 0x00, 0x01,  // base 0, count 1
        0x00, 0x00, 0x00, 0x00,
        0x60, 0x01, 0x00, 0x00,  // run length chunk of symbol 11 | zero padding
    ]

    @Test("RFC 3550 §6.1: an RR, SDES, REMB and transport-cc compound parses packet by packet")
    func compoundOfFour() throws {
        let sdes = RTCPSourceDescription(source: 1, cname: "stage")
        let bytes = try Self.receiverReport + sdes.serialized() + RTCPFeedbackTests.chromeREMB + RTCPTransportCCTests.capturedRunLength
        let packets = try RTCPPacket.parseCompound(bytes)
        #expect(packets.map(\.packetType) == [.receiverReport, .sourceDescription, .payloadFeedback, .transportFeedback])
        #expect(packets[1] == .sourceDescription(sdes))
        #expect(try RTCPPacket.serializeCompound(packets) == bytes)

        try bytes.withUnsafeBytes { buffer throws in
            var iterator = RTCPCompoundIterator(buffer)
            var ranges: [Range<Int>] = []
            while let frame = try iterator.nextFrame() { ranges.append(frame.range) }
            #expect(ranges == [0..<8, 8..<24, 24..<48, 48..<80])
        }
    }

    @Test("RFC 3550 §6.1: a packet that frames but does not decode is skipped; the walk goes on")
    func lenientIteration() throws {
        let bytes = Self.receiverReport + Self.reservedTWCC + Self.pli
        var seen: [String] = []
        bytes.withUnsafeBytes { buffer in
            var iterator = RTCPCompoundIterator(buffer)
            while true {
                do {
                    guard let packet = try iterator.next() else { break }
                    seen.append(packet.packetType.description)
                } catch {
                    seen.append("error: \(error)")
                }
            }
        }
        #expect(seen == ["RR", "error: RTCP transport-cc reserved status symbol at packet 0", "PSFB"])
        #expect(rtcpError { try RTCPPacket.parseCompound(bytes) } == .transportCCReservedStatus(index: 0))
    }

    @Test("RFC 3550 §6.1: trailing garbage after the last packet is rejected", arguments: [
        ([UInt8](arrayLiteral: 0x00), RTCPError.trailingBytes(1)),
        ([0x00, 0x00, 0x00], .trailingBytes(3)),
        ([0x00, 0x00, 0x00, 0x00], .badVersion(0)),
        ([0x80, 0xC9, 0x00, 0x05], .lengthExceedsBuffer(declared: 24, available: 4)),
    ])
    func trailingGarbage(_ garbage: [UInt8], _ error: RTCPError) {
        let bytes = Self.receiverReport + garbage
        #expect(rtcpError { try RTCPPacket.parseCompound(bytes) } == error)
        bytes.withUnsafeBytes { buffer in
            var iterator = RTCPCompoundIterator(buffer)
            #expect((try? iterator.next()) != nil)
            #expect(rtcpError { try iterator.next() } == error)
            #expect(rtcpError { try iterator.next() } == nil)  // stopped
        }
    }

    @Test("RFC 3550 §6.1: an empty compound is an error; a single packet must fill its buffer")
    func emptyAndTrailing() {
        #expect(rtcpError { try RTCPPacket.parseCompound([UInt8]()) } == .emptyCompound)
        #expect(rtcpError { try RTCPPacket(parsing: Self.receiverReport + Self.pli) } == .trailingBytes(12))
        #expect(rtcpError { try RTCPReceiverReport(parsing: Self.receiverReport + [0]) } == .trailingBytes(1))
    }

    @Test("RFC 3550 §6.1: unknown packet types come back raw, not as errors", arguments: [
        // APP (RFC 3550 §6.7): subtype 0, SSRC, name "test", 4 bytes of data
        [UInt8](arrayLiteral: 0x80, 0xCC, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x74, 0x65, 0x73, 0x74, 0xDE, 0xAD, 0xBE, 0xEF),
        // XR (RFC 3611): SSRC, one empty block of type 4
        [0x80, 0xCF, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x04, 0x00, 0x00, 0x00],
        // a type no RFC assigns (210), with padding
        [0xA1, 0xD2, 0x00, 0x01, 0xAB, 0x00, 0x00, 0x03],
    ])
    func unknownTypesAreRaw(_ bytes: [UInt8]) throws {
        let packets = try RTCPPacket.parseCompound(Self.receiverReport + bytes)
        guard case let .raw(raw) = packets[1] else {
            Issue.record("expected raw, got \(packets[1])")
            return
        }
        #expect(raw.packetType.rawValue == bytes[1] && raw.count == bytes[0] & 0x1F)
        #expect(try RTCPPacket.serializeCompound(packets) == Self.receiverReport + bytes)
    }
}
