import Testing
@testable import StageMedia
import StageWire

/// Malformed and incomplete input to the VP8 depacketizer (RFC 7741 §4): every case throws a
/// named error, none traps.
@Suite("VP8 depacketizer error handling (RFC 7741 §4.2, §4.4)")
struct PacketizerDepacketizerErrorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var packets: [ReceivedRTPPacket]
        var error: VP8DepacketizerError
        var testDescription: String { name }
    }

    static func packet(_ sequence: UInt16, _ payload: [UInt8], timestamp: UInt32 = 3000, marker: Bool = false) -> ReceivedRTPPacket {
        ReceivedRTPPacket(sequenceNumber: sequence, timestamp: timestamp, marker: marker, payload: payload)
    }

    /// A well-formed first and middle packet of picture 1.
    static let start = packet(10, RTPTestMedia.payload(start: true, data: [0x11, 0, 0]))
    static let middle = packet(11, RTPTestMedia.payload(start: false, data: [4, 5]))

    static let cases: [Case] = [
        Case(name: "no packets", packets: [], error: .noPackets),
        Case(name: "empty payload", packets: [packet(10, [], marker: true)], error: .malformedPayload(sequenceNumber: 10, .emptyPayload)),
        // 90 80 81 23: X, S; I; 15-bit PictureID 0x0123 — and nothing after it.
        Case(name: "descriptor only", packets: [packet(10, [0x90, 0x80, 0x81, 0x23], marker: true)],
             error: .malformedPayload(sequenceNumber: 10, .noFrameData)),
        Case(name: "missing start (S = 0)", packets: [middle, packet(12, RTPTestMedia.payload(start: false, data: [6]), marker: true)],
             error: .missingFrameStart(sequenceNumber: 11)),
        // 13: S = 1 but PID = 3: a later partition, not the frame's start.
        Case(name: "start of partition 3", packets: [packet(10, [0x13, 0x11, 0, 0], marker: true)], error: .missingFrameStart(sequenceNumber: 10)),
        Case(name: "gap in the middle", packets: [start, packet(12, RTPTestMedia.payload(start: false, data: [6]), marker: true)],
             error: .sequenceGap(expected: 11, got: 12)),
        Case(name: "out of order", packets: [start, packet(12, RTPTestMedia.payload(start: false, data: [6]), marker: true), middle],
             error: .sequenceGap(expected: 11, got: 12)),
        Case(name: "timestamps of two frames", packets: [start, packet(11, RTPTestMedia.payload(start: false, data: [6]), timestamp: 6000, marker: true)],
             error: .timestampMismatch(expected: 3000, got: 6000, sequenceNumber: 11)),
        Case(name: "PictureID changes", packets: [start, packet(11, RTPTestMedia.payload(start: false, pictureID: 2, data: [6]), marker: true)],
             error: .pictureIDMismatch(expected: 1, got: 2, sequenceNumber: 11)),
        Case(name: "second frame start", packets: [start, packet(11, RTPTestMedia.payload(start: true, data: [0x11, 0, 0]), marker: true)],
             error: .unexpectedFrameStart(sequenceNumber: 11)),
        Case(name: "marker before the end", packets: [packet(10, RTPTestMedia.payload(start: true, data: [0x11, 0, 0]), marker: true), middle],
             error: .markerBeforeEnd(sequenceNumber: 10)),
        Case(name: "no marker at the end", packets: [start, middle], error: .missingMarker(sequenceNumber: 11)),
        Case(name: "malformed middle packet", packets: [start, packet(11, [0x80], marker: true)],
             error: .malformedPayload(sequenceNumber: 11, .descriptorTooShort(needed: 2, got: 1))),
    ]

    @Test("malformed frames", arguments: cases)
    func malformed(_ testCase: Case) {
        #expect(throws: testCase.error) { try VP8Depacketizer.assemble(testCase.packets) }
    }

    /// The descriptor cut short at each optional field (RFC 7741 §4.2).
    static let truncated: [(bytes: [UInt8], needed: Int)] = [
        ([0x90], 2),  // X = 1, no X octet
        ([0x90, 0x80], 3),  // I = 1, no PictureID
        ([0x90, 0x80, 0x81], 4),  // M = 1, no second PictureID octet
        ([0x90, 0x40], 3),  // L = 1, no TL0PICIDX
        ([0x90, 0x20], 3),  // T = 1, no TID/Y/KEYIDX octet
        ([0x90, 0x10], 3),  // K = 1, no TID/Y/KEYIDX octet
        ([0x90, 0xC0, 0x05], 4),  // I (7-bit) then L: no TL0PICIDX
        ([0x90, 0xE0, 0x81, 0x02, 0x05], 6),  // I (15-bit), L, T: no TID octet
    ]

    @Test("descriptor truncated at each field", arguments: truncated)
    func truncatedDescriptor(_ bytes: [UInt8], _ needed: Int) {
        let packet = Self.packet(10, bytes, marker: true)
        #expect(throws: VP8DepacketizerError.malformedPayload(sequenceNumber: 10, .descriptorTooShort(needed: needed, got: bytes.count))) {
            try VP8Depacketizer.assemble([packet])
        }
    }

    @Test("a one-packet frame without a descriptor extension assembles; a short first packet is not a keyframe")
    func minimalDescriptor() throws {
        let frame = try VP8Depacketizer.assemble([Self.packet(65_535, [0x10, 0x10, 0x02], marker: true)])
        #expect(frame.data == [0x10, 0x02] && frame.pictureID == nil && !frame.isKeyframe)
        let keyframe = try VP8Depacketizer.assemble([Self.packet(1, [0x10] + RTPTestMedia.keyframe(size: 12, width: 320, height: 180), marker: true)])
        #expect(keyframe.isKeyframe && keyframe.width == 320 && keyframe.height == 180)
        // A keyframe whose first packet stops inside the dimensions: a keyframe of unknown size.
        let split = try VP8Depacketizer.assemble([
            Self.packet(65_535, [0x10, 0x10, 0x02, 0x00, 0x9D]),
            Self.packet(0, [0x00, 0x01, 0x2A, 0x40, 0x01, 0xB4, 0x00], marker: true),
        ])
        #expect(split.isKeyframe && split.width == nil && split.data.count == 10)
        #expect(VP8DepacketizerError.sequenceGap(expected: 1, got: 3).description == "VP8 frame has a sequence gap: expected 1, got 3")
    }
}
