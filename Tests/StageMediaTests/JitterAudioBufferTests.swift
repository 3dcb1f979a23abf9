import Testing
@testable import StageMedia

/// The Opus jitter buffer: one packet per 20 ms tick after the target delay (RFC 7587 §4.2).
@Suite("Audio jitter buffer")
struct JitterAudioBufferTests {
    static func packet(_ sequence: UInt16) -> ReceivedRTPPacket {
        ReceivedRTPPacket(sequenceNumber: sequence, timestamp: UInt32(sequence) &* 960, marker: false, payload: [0xFC, UInt8(truncatingIfNeeded: sequence)])
    }

    static func payload(_ sequence: UInt16) -> [UInt8] { packet(sequence).payload }

    @Test("live: buffers to the target delay (3 × 20 ms), then one packet per tick in order")
    func inOrder() {
        var buffer = AudioJitterBuffer()
        var out: [AudioJitterBuffer.Output] = []
        for sequence in UInt16(100)..<106 {
            #expect(buffer.insert(Self.packet(sequence)) == .inserted)
            out.append(buffer.tick())
        }
        #expect(out == [.buffering, .buffering, .packet(Self.payload(100)), .packet(Self.payload(101)), .packet(Self.payload(102)), .packet(Self.payload(103))])
        #expect(buffer.heldPacketCount == 2)
        #expect(buffer.statistics.packetsPlayed == 4 && buffer.statistics.packetsLost == 0)
        #expect(buffer.lastPlayedTimestamp == UInt32(103 * 960))
    }

    @Test("reordered packets come out in sequence order")
    func reordered() {
        var buffer = AudioJitterBuffer()
        for sequence: UInt16 in [2, 0, 1, 5, 3, 4] { _ = buffer.insert(Self.packet(sequence)) }
        let out = (0..<6).map { _ in buffer.tick() }
        #expect(out == (0..<6).map { .packet(Self.payload($0)) })
    }

    @Test("a lost packet: .missing with the next packet for FEC, then the next packet; a duplicate and a late packet are dropped")
    func lossDuplicateLate() {
        var buffer = AudioJitterBuffer()
        for sequence: UInt16 in [10, 11, 13, 14, 15] { _ = buffer.insert(Self.packet(sequence)) }
        #expect(buffer.insert(Self.packet(13)) == .duplicate)
        let out = (0..<5).map { _ in buffer.tick() }
        #expect(out == [.packet(Self.payload(10)), .packet(Self.payload(11)), .missing(next: Self.payload(13)), .packet(Self.payload(13)), .packet(Self.payload(14))])
        #expect(buffer.insert(Self.packet(12)) == .late)
        #expect(buffer.statistics.packetsLost == 1 && buffer.statistics.latePackets == 1 && buffer.statistics.duplicatePackets == 1)
        // Two in a row missing: the first has no next packet to recover from.
        for sequence: UInt16 in [18, 19] { _ = buffer.insert(Self.packet(sequence)) }
        let more = (0..<5).map { _ in buffer.tick() }
        #expect(more == [.packet(Self.payload(15)), .missing(next: nil), .missing(next: Self.payload(18)), .packet(Self.payload(18)), .packet(Self.payload(19))])
    }

    @Test("sequence numbers wrap 65535 → 0")
    func wraparound() {
        var buffer = AudioJitterBuffer()
        for sequence: UInt16 in [65_534, 0, 65_535, 1, 2] { _ = buffer.insert(Self.packet(sequence)) }
        let out = (0..<5).map { _ in buffer.tick() }
        #expect(out == [65_534, 65_535, 0, 1, 2].map { .packet(Self.payload($0)) })
    }

    @Test("underrun: conceals without skipping, rebuilds the cushion, then resumes with no loss counted")
    func underrun() {
        var buffer = AudioJitterBuffer()
        for sequence: UInt16 in 0..<3 { _ = buffer.insert(Self.packet(sequence)) }
        var out = (0..<5).map { _ in buffer.tick() }
        #expect(out == [.packet(Self.payload(0)), .packet(Self.payload(1)), .packet(Self.payload(2)), .missing(next: nil), .missing(next: nil)])
        // DTX silence ends: the next packets follow on.
        out = []
        for sequence: UInt16 in 3..<7 {
            _ = buffer.insert(Self.packet(sequence))
            out.append(buffer.tick())
        }
        #expect(out == [.missing(next: nil), .missing(next: nil), .packet(Self.payload(3)), .packet(Self.payload(4))])
        #expect(buffer.statistics.underruns == 4 && buffer.statistics.packetsLost == 0)
    }

    @Test("latency bound: a burst deeper than maxDelayPackets is trimmed from the oldest")
    func latencyBound() {
        var buffer = AudioJitterBuffer()
        for sequence: UInt16 in 0..<20 { _ = buffer.insert(Self.packet(sequence)) }
        #expect(buffer.tick() == .packet(Self.payload(10)))
        #expect(buffer.statistics.latencyDrops == 10)
        #expect(buffer.heldPacketCount == 9)
    }

    @Test("sender restart: a far jump is confirmed by the next packet, then the buffer starts over")
    func restart() {
        var buffer = AudioJitterBuffer()
        for sequence: UInt16 in 0..<4 { _ = buffer.insert(Self.packet(sequence)) }
        #expect(buffer.tick() == .packet(Self.payload(0)))
        #expect(buffer.insert(Self.packet(40_000)) == .outOfRange)
        #expect(buffer.insert(Self.packet(2)) == .duplicate)
        #expect(buffer.insert(Self.packet(40_000)) == .outOfRange)
        #expect(buffer.insert(Self.packet(40_001)) == .restarted)
        _ = buffer.insert(Self.packet(40_002))
        _ = buffer.insert(Self.packet(40_003))
        let out = (0..<3).map { _ in buffer.tick() }
        #expect(out == [.packet(Self.payload(40_001)), .packet(Self.payload(40_002)), .packet(Self.payload(40_003))])
        #expect(buffer.statistics.restarts == 1 && buffer.statistics.outOfRangePackets == 2)
    }
}
