import Testing
@testable import StageMedia
import StageWire

/// The VP8 jitter buffer: ordering, duplicates, wraparound, NACK (RFC 4585 §6.2.1), keyframe
/// requests (§6.3.1) and its memory bound.
@Suite("Video jitter buffer")
struct JitterVideoBufferTests {
    static let rtt: UInt64 = 50_000
    /// Milliseconds to µs.
    static func ms(_ value: UInt64) -> UInt64 { value * 1000 }

    /// Inserts each frame's packets 33 ms apart and pops after every packet.
    static func play(_ frames: [[ReceivedRTPPacket]], into buffer: inout VideoJitterBuffer, startMillis: UInt64 = 0) -> [ReceivedVP8Frame] {
        var out: [ReceivedVP8Frame] = []
        for (index, frame) in frames.enumerated() {
            let now = ms(startMillis + 33 * UInt64(index))
            for packet in frame {
                _ = buffer.insert(packet, now: now)
                out += buffer.popCompleteFrames(now: now, rtt: rtt)
            }
        }
        return out
    }

    @Test("in order: every frame once, in order; keyframe needed only until the first keyframe")
    func inOrder() {
        var sender = VP8TestSender()
        let (frames, packets) = sender.stream([true, false, false, true, false])
        var buffer = VideoJitterBuffer()
        #expect(buffer.keyframeNeeded)
        let dueBeforeAnyPacket = buffer.keyframeRequestDue(now: 0)
        #expect(!dueBeforeAnyPacket)
        let out = Self.play(packets, into: &buffer)
        #expect(out.map(\.data) == frames)
        #expect(out.map(\.isKeyframe) == [true, false, false, true, false])
        #expect(out.map(\.pictureID) == [0, 1, 2, 3, 4])
        #expect(!buffer.keyframeNeeded)
        #expect(buffer.nacksDue(now: Self.ms(200), rtt: Self.rtt).isEmpty)
        #expect(buffer.heldPacketCount == 0)
        #expect(buffer.statistics.framesEmitted == 5 && buffer.statistics.packetsReceived == 15)
        #expect(buffer.statistics.framesDropped == 0 && buffer.statistics.packetsLost == 0)
    }

    @Test("reordered within a window of 7 packets: frames still emitted whole and in order", arguments: [1, 2, 3, 4] as [UInt64])
    func reordered(seed: UInt64) {
        var sender = VP8TestSender()
        let (frames, packets) = sender.stream([true] + Array(repeating: false, count: 11))
        var flat = packets.flatMap { $0 }
        var generator = SeededGenerator(seed: seed)
        for start in stride(from: 0, to: flat.count, by: 7) {
            flat[start..<min(start + 7, flat.count)].shuffle(using: &generator)
        }
        var buffer = VideoJitterBuffer()
        var out: [ReceivedVP8Frame] = []
        for (index, packet) in flat.enumerated() {
            let now = Self.ms(UInt64(index) * 10)
            _ = buffer.insert(packet, now: now)
            out += buffer.popCompleteFrames(now: now, rtt: Self.rtt)
        }
        #expect(out.map(\.data) == frames)
        #expect(!buffer.keyframeNeeded && buffer.statistics.packetsLost == 0)
    }

    @Test("duplicates: held or already emitted, each counted and dropped")
    func duplicates() {
        var sender = VP8TestSender()
        let (frames, packets) = sender.stream([true, false, false])
        var buffer = VideoJitterBuffer()
        var out: [ReceivedVP8Frame] = []
        for packet in packets.flatMap({ $0 }) {
            #expect(buffer.insert(packet, now: 0) != .duplicate)
            #expect(buffer.insert(packet, now: 0) == .duplicate)
            out += buffer.popCompleteFrames(now: 0, rtt: Self.rtt)
        }
        // Every packet again, long after its frame was emitted.
        for packet in packets.flatMap({ $0 }) {
            #expect(buffer.insert(packet, now: Self.ms(100)) == .duplicate)
        }
        out += buffer.popCompleteFrames(now: Self.ms(100), rtt: Self.rtt)
        #expect(out.map(\.data) == frames)
        #expect(buffer.statistics.duplicatePackets == 18)
    }

    @Test("one packet lost, NACKed, retransmitted: the frame is emitted and no keyframe is requested")
    func lostThenRepaired() throws {
        var sender = VP8TestSender()
        let (frames, packets) = sender.stream([true, false, false, false])
        let lost = packets[1][1]  // middle packet of the first delta frame
        var buffer = VideoJitterBuffer()
        var out = Self.play(packets.map { $0.filter { $0 != lost } }, into: &buffer)
        #expect(out.map(\.data) == [frames[0]])  // held behind the gap
        #expect(buffer.nacksDue(now: Self.ms(100), rtt: Self.rtt) == [lost.sequenceNumber])
        #expect(buffer.nacksDue(now: Self.ms(120), rtt: Self.rtt).isEmpty)  // within one RTT
        #expect(buffer.nacksDue(now: Self.ms(150), rtt: Self.rtt) == [lost.sequenceNumber])
        let generic = buffer.genericNACK(now: Self.ms(200), rtt: Self.rtt, senderSSRC: 1, mediaSSRC: 2)
        let nack = try #require(generic)
        #expect(nack.lostSequenceNumbers == [lost.sequenceNumber])
        out += buffer.popCompleteFrames(now: Self.ms(170), rtt: Self.rtt)
        #expect(out.count == 1)
        #expect(buffer.insert(lost, now: Self.ms(180)) == .recovered)
        out += buffer.popCompleteFrames(now: Self.ms(180), rtt: Self.rtt)
        #expect(out.map(\.data) == frames)
        #expect(!buffer.keyframeNeeded && !buffer.keyframeRequestDue(now: Self.ms(180)))
        #expect(buffer.nacksDue(now: Self.ms(400), rtt: Self.rtt).isEmpty)
        #expect(buffer.statistics.nacksSent == 3 && buffer.statistics.packetsRecovered == 1)
        #expect(buffer.statistics.packetsLost == 0 && buffer.statistics.keyframeRequests == 0)
    }

    @Test("one packet never arrives: keyframe requested after the max wait, deltas skipped until the next keyframe")
    func lostForever() {
        var sender = VP8TestSender()
        let kinds = [true, false, false, false, false, false, true, false, false]
        let (frames, packets) = sender.stream(kinds)
        let lost = packets[1][0]  // start of the first delta frame
        var buffer = VideoJitterBuffer()
        var out = Self.play(Array(packets[0...5]).map { $0.filter { $0 != lost } }, into: &buffer)
        #expect(out.map(\.data) == [frames[0]])
        #expect(!buffer.keyframeNeeded)
        // 2 × RTT = 100 ms < 200 ms: the wait is 200 ms from when the gap was found (t = 33 ms).
        out += buffer.popCompleteFrames(now: Self.ms(233), rtt: Self.rtt)
        #expect(!buffer.keyframeNeeded && out.count == 1)
        out += buffer.popCompleteFrames(now: Self.ms(234), rtt: Self.rtt)
        #expect(buffer.keyframeNeeded && out.count == 1)
        let due = buffer.keyframeRequestDue(now: Self.ms(234))
        let dueAgain = buffer.keyframeRequestDue(now: Self.ms(300))
        #expect(due && !dueAgain)
        #expect(buffer.pictureLossIndication(now: Self.ms(534), senderSSRC: 1, mediaSSRC: 2) == RTCPPictureLossIndication(senderSSRC: 1, mediaSSRC: 2))
        // The retransmission arriving now is too late.
        #expect(buffer.insert(lost, now: Self.ms(240)) == .late)
        out += Self.play(Array(packets[6...]), into: &buffer, startMillis: 600)
        #expect(out.map(\.data) == [frames[0], frames[6], frames[7], frames[8]])
        #expect(!buffer.keyframeNeeded)
        #expect(buffer.statistics.packetsLost == 1 && buffer.statistics.keyframeRequests == 2)
        #expect(buffer.statistics.framesDropped == 5)  // frames 1–5
        #expect(buffer.statistics.latePackets == 1 && buffer.heldPacketCount == 0)
    }

    @Test("a gap followed by a complete keyframe: skipped at once, no wait and no keyframe request")
    func gapBeforeKeyframe() {
        var sender = VP8TestSender()
        let (frames, packets) = sender.stream([true, false, false, true, false])
        let lost = packets[1][2]
        var buffer = VideoJitterBuffer()
        let out = Self.play(packets.map { $0.filter { $0 != lost } }, into: &buffer)
        #expect(out.map(\.data) == [frames[0], frames[3], frames[4]])
        #expect(!buffer.keyframeNeeded && buffer.statistics.keyframeRequests == 0)
        #expect(buffer.statistics.packetsLost == 1 && buffer.statistics.framesDropped == 2)
        #expect(buffer.nacksDue(now: Self.ms(200), rtt: Self.rtt).isEmpty)
        #expect(buffer.insert(lost, now: Self.ms(200)) == .late)
    }

    @Test("a long RTT lengthens the wait to 2 × RTT")
    func waitFollowsRTT() {
        var sender = VP8TestSender()
        let (_, packets) = sender.stream([true, false, false])
        var buffer = VideoJitterBuffer()
        _ = Self.play(packets.map { $0.filter { $0 != packets[1][2] } }, into: &buffer)
        _ = buffer.popCompleteFrames(now: Self.ms(500), rtt: Self.ms(300))
        #expect(!buffer.keyframeNeeded)
        _ = buffer.popCompleteFrames(now: Self.ms(667), rtt: Self.ms(300))
        #expect(buffer.keyframeNeeded)
    }

    @Test("NACKs: at most maxNacksPerPacket times, none after maxNackAge")
    func nackLimits() {
        var sender = VP8TestSender()
        let (_, packets) = sender.stream([true, false, false])
        var buffer = VideoJitterBuffer(configuration: .init(maxNacksPerPacket: 3, minWaitMicros: 10_000_000))
        _ = Self.play(packets.map { $0.filter { $0 != packets[1][1] } }, into: &buffer)
        let counts = (0..<10).map { step in buffer.nacksDue(now: Self.ms(100 + 60 * UInt64(step)), rtt: Self.rtt).count }
        #expect(counts == [1, 1, 1, 0, 0, 0, 0, 0, 0, 0])
        var patient = VideoJitterBuffer(configuration: .init(minWaitMicros: 10_000_000))
        _ = Self.play(packets.map { $0.filter { $0 != packets[1][1] } }, into: &patient)
        #expect(patient.nacksDue(now: Self.ms(1033), rtt: Self.rtt).count == 1)
        #expect(patient.nacksDue(now: Self.ms(1100), rtt: 0).isEmpty)  // found missing at 33 ms: over 1 s ago
    }

    @Test("sequence numbers wrap 65535 → 0, in order and reordered across the wrap")
    func wraparound() {
        var sender = VP8TestSender(firstSequenceNumber: 65_530)
        let (frames, packets) = sender.stream([true, false, false, false])
        #expect(packets[2].contains { $0.sequenceNumber == 0 })
        var buffer = VideoJitterBuffer()
        #expect(Self.play(packets, into: &buffer).map(\.data) == frames)

        var flat = packets.flatMap { $0 }
        flat.swapAt(5, 7)  // 65535 after 1
        flat.swapAt(6, 3)
        var shuffled = VideoJitterBuffer()
        var out: [ReceivedVP8Frame] = []
        for packet in flat {
            _ = shuffled.insert(packet, now: 0)
            out += shuffled.popCompleteFrames(now: 0, rtt: Self.rtt)
        }
        #expect(out.map(\.data) == frames)
        #expect(shuffled.statistics.packetsLost == 0 && shuffled.statistics.latePackets == 0)
    }

    @Test("start: delta frames before the first keyframe are dropped; one early reordered packet is still taken")
    func startsAtKeyframe() {
        var sender = VP8TestSender()
        let (frames, packets) = sender.stream([false, false, true, false])
        var buffer = VideoJitterBuffer()
        let out = Self.play(packets, into: &buffer)
        #expect(out.map(\.data) == [frames[2], frames[3]])
        #expect(buffer.statistics.framesDropped == 2)

        // The keyframe's second packet arrives first.
        var early = VideoJitterBuffer()
        let keyframe = packets[2]
        _ = early.insert(keyframe[1], now: 0)
        let due = early.keyframeRequestDue(now: 0)
        #expect(due)
        #expect(early.insert(keyframe[0], now: 1) == .inserted)
        _ = early.insert(keyframe[2], now: 2)
        #expect(early.popCompleteFrames(now: 2, rtt: Self.rtt).map(\.data) == [frames[2]])
        #expect(early.statistics.keyframeRequests == 1)
    }

    @Test("a malformed packet drops its frame and asks for a keyframe")
    func malformedPacket() {
        var sender = VP8TestSender()
        let (frames, sent) = sender.stream([true, false, false, true])
        var packets = sent
        packets[1][1].payload = [0x80]  // X = 1 and nothing more
        var buffer = VideoJitterBuffer()
        let out = Self.play(packets, into: &buffer)
        #expect(out.map(\.data) == [frames[0], frames[3]])
        #expect(buffer.statistics.malformedPackets == 1)
        #expect(buffer.statistics.framesDropped == 2)
        #expect(buffer.statistics.keyframeRequests == 0 && !buffer.keyframeNeeded)
    }

    @Test("memory cap: a packet beyond maxPackets flushes the buffer and needs a keyframe")
    func memoryCap() {
        var sender = VP8TestSender()
        let (_, packets) = sender.stream([true] + Array(repeating: false, count: 30))
        var flat = packets.flatMap { $0 }
        flat.remove(at: 4)  // a gap that holds everything behind it
        var buffer = VideoJitterBuffer(configuration: .init(maxPackets: 50, minWaitMicros: 10_000_000))
        var results: [VideoJitterBuffer.InsertResult] = []
        for packet in flat {
            results.append(buffer.insert(packet, now: 0))
            _ = buffer.popCompleteFrames(now: 0, rtt: Self.rtt)
            #expect(buffer.heldPacketCount < 50)
        }
        #expect(results.filter { $0 == .flushed }.count == 1)
        #expect(buffer.statistics.flushes == 1 && buffer.keyframeNeeded)
        #expect(buffer.statistics.packetsLost == 1)
    }

    @Test("a sender restarting far behind: the next packet confirms it and the buffer starts over")
    func senderRestart() {
        var sender = VP8TestSender(firstSequenceNumber: 30_000)
        let (_, before) = sender.stream([true, false])
        var restarted = VP8TestSender(firstSequenceNumber: 20_000, pictureID: 500, timestamp: 5)
        let (frames, after) = restarted.stream([true, false])
        var buffer = VideoJitterBuffer()
        _ = Self.play(before, into: &buffer)
        #expect(buffer.insert(after[0][0], now: Self.ms(100)) == .late)
        #expect(buffer.insert(after[0][1], now: Self.ms(100)) == .flushed)
        #expect(buffer.statistics.restarts == 1 && buffer.keyframeNeeded)
        // The first packet of the new keyframe was taken as late; a retransmission brings it.
        var out = Self.play([Array(after[0][2...])] + [after[1]], into: &buffer, startMillis: 110)
        #expect(buffer.insert(after[0][0], now: Self.ms(160)) == .inserted)
        out += buffer.popCompleteFrames(now: Self.ms(160), rtt: Self.rtt)
        #expect(out.map(\.data) == frames)
    }
}
