import Testing
@testable import StageKit

/// What a publisher can send again when the server reports packets lost (RFC 4585 §6.2.1).
@Suite struct SentPacketHistoryTests {
    static func packet(ssrc: UInt32, sequence: UInt16, payload: UInt8 = 0) -> [UInt8] {
        [0x80, 96, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 0, 0, 0,
         UInt8(ssrc >> 24), UInt8(ssrc >> 16 & 0xFF), UInt8(ssrc >> 8 & 0xFF), UInt8(ssrc & 0xFF), payload]
    }

    @Test("packets are found by SSRC and sequence number, in the order asked; unknown ones are skipped")
    func findsWhatWasSent() {
        var history = SentPacketHistory()
        history.record((UInt16(10)...20).map { Self.packet(ssrc: 1, sequence: $0) } + [Self.packet(ssrc: 2, sequence: 15, payload: 9)])
        #expect(history.packets(ssrc: 1, sequences: [17, 12, 99]) == [Self.packet(ssrc: 1, sequence: 17), Self.packet(ssrc: 1, sequence: 12)])
        #expect(history.packets(ssrc: 2, sequences: [15]) == [Self.packet(ssrc: 2, sequence: 15, payload: 9)])
        #expect(history.packets(ssrc: 3, sequences: [15]).isEmpty)
    }

    @Test("a packet older than the ring is gone once its slot is reused, even across the 65535 wrap")
    func forgetsOldPackets() {
        var history = SentPacketHistory()
        let size = UInt16(SentPacketHistory.size)
        history.record([Self.packet(ssrc: 1, sequence: 65535 &- 3)])
        history.record((0..<size).map { Self.packet(ssrc: 1, sequence: (65535 &- 2) &+ $0) })
        #expect(history.packets(ssrc: 1, sequences: [65535 &- 3]).isEmpty)
        #expect(history.packets(ssrc: 1, sequences: [0, 65535]).count == 2)
        history.record([[0x80, 96, 0]])   // too short to be RTP: ignored
    }
}
