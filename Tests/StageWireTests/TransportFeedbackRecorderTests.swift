import StageWire
import Testing

/// `TransportFeedbackRecorder`: arrivals by transport-wide sequence number turned into
/// transport-cc feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1), checked by
/// serializing each packet and parsing it back as a sender would.
@Suite struct TransportFeedbackRecorderTests {
    /// Serializes and parses `feedback` (what reaches the publisher); its packets' results in order.
    private func wire(_ feedback: [RTCPTransportCCFeedback]) throws -> [[RTCPTransportCCFeedback.PacketResult]] {
        try feedback.map { packet in
            let bytes = try RTCPPacket.transportCCFeedback(packet).serialized()
            #expect(bytes.count <= 1200, "one feedback packet is \(bytes.count) bytes")
            let parsed = try RTCPPacket(parsing: bytes)
            guard case .transportCCFeedback(let back) = parsed else {
                Issue.record("not parsed as transport-cc: \(parsed)")
                return []
            }
            return back.packetResults()
        }
    }

    private func received(_ results: [RTCPTransportCCFeedback.PacketResult]) -> [UInt16] {
        results.filter { $0.status != .notReceived }.map(\.sequenceNumber)
    }

    @Test("Packets in order: all received, arrival times kept to the 250 µs unit")
    func inOrder() throws {
        var recorder = TransportFeedbackRecorder()
        let start: Int64 = 5_000_123
        for index in 0..<20 { recorder.record(UInt16(100 + index), at: start + Int64(index) * 10_250) }
        let results = try wire(recorder.feedback(senderSSRC: 1, mediaSSRC: 2))
        #expect(results.count == 1)
        #expect(results[0].map(\.sequenceNumber) == (100..<120).map { UInt16($0) })
        for (index, result) in results[0].enumerated() {
            let arrival = try #require(result.arrivalTime)
            #expect(abs(arrival - (start + Int64(index) * 10_250)) <= 125, "packet \(index) at \(arrival)")
        }
        #expect(recorder.feedback(senderSSRC: 1, mediaSSRC: 2).isEmpty, "nothing new, nothing sent")
    }

    @Test("A gap is reported as not received; a reordered packet gets a negative delta")
    func gapsAndReordering() throws {
        var recorder = TransportFeedbackRecorder()
        recorder.record(1, at: 1_000_000)
        recorder.record(3, at: 1_010_000)
        recorder.record(2, at: 1_020_000)  // arrives after 3
        recorder.record(6, at: 1_030_000)
        let results = try wire(recorder.feedback(senderSSRC: 1, mediaSSRC: 2))[0]
        #expect(results.map(\.sequenceNumber) == [1, 2, 3, 4, 5, 6])
        #expect(received(results) == [1, 2, 3, 6])
        let three = try #require(results.first { $0.sequenceNumber == 3 })
        #expect(three.status == .receivedLargeDelta && (three.receiveDelta ?? 0) < 0, "3 arrived 10 ms before 2")
        #expect(three.arrivalTime.map { abs($0 - 1_010_000) <= 125 } == true)
    }

    @Test("Sequence numbers continue across the 16-bit wrap, and reports follow on")
    func wrapAndContinuation() throws {
        var recorder = TransportFeedbackRecorder()
        for (index, sequence) in [UInt16(65534), 65535, 0, 1].enumerated() { recorder.record(sequence, at: Int64(index) * 1_000) }
        let first = recorder.feedback(senderSSRC: 1, mediaSSRC: 2)
        #expect(try wire(first)[0].map(\.sequenceNumber) == [65534, 65535, 0, 1])
        recorder.record(3, at: 10_000)
        let second = recorder.feedback(senderSSRC: 1, mediaSSRC: 2)
        #expect(try wire(second)[0].map(\.sequenceNumber) == [2, 3], "starts right after the last report: 2 was lost")
        #expect(second[0].feedbackPacketCount == first[0].feedbackPacketCount &+ 1)
    }

    @Test("A packet that arrives after its number was reported is left out and counted")
    func lateArrival() throws {
        var recorder = TransportFeedbackRecorder()
        recorder.record(10, at: 0)
        recorder.record(12, at: 1_000)
        _ = recorder.feedback(senderSSRC: 1, mediaSSRC: 2)
        recorder.record(11, at: 2_000)
        recorder.record(13, at: 3_000)
        #expect(received(try wire(recorder.feedback(senderSSRC: 1, mediaSSRC: 2))[0]) == [13])
        #expect(recorder.lateArrivals == 1)
    }

    @Test("A sequence number far past the window is not held; the window stays bounded")
    func outOfWindow() throws {
        var recorder = TransportFeedbackRecorder()
        recorder.record(0, at: 0)
        recorder.record(UInt16(TransportFeedbackRecorder.window), at: 1_000)
        recorder.record(1, at: 2_000)
        #expect(recorder.outOfWindow == 1)
        #expect(received(try wire(recorder.feedback(senderSSRC: 1, mediaSSRC: 2))[0]) == [0, 1])
    }

    @Test("Worst case for size: a loss between every two arrivals, each arrival a two-byte delta")
    func largestPacket() throws {
        var recorder = TransportFeedbackRecorder()
        for index in 0..<TransportFeedbackRecorder.maximumReceivedPerPacket {
            recorder.record(UInt16(2 * index), at: Int64(index) * 70_000)  // 70 ms apart: over a small delta's 63.75 ms
        }
        let results = try wire(recorder.feedback(senderSSRC: 1, mediaSSRC: 2))
        #expect(results.count == 1 && results[0].count == 2 * TransportFeedbackRecorder.maximumReceivedPerPacket - 1)
    }

    @Test("Many packets, or receive deltas past 16 bits, split into packets that each parse")
    func splits() throws {
        var recorder = TransportFeedbackRecorder()
        let count = TransportFeedbackRecorder.maximumReceivedPerPacket * 2 + 17
        for index in 0..<count { recorder.record(UInt16(index), at: Int64(index) * 400) }
        let many = try wire(recorder.feedback(senderSSRC: 1, mediaSSRC: 2))
        #expect(many.count == 3)
        #expect(many.flatMap(received) == (0..<count).map { UInt16($0) })

        recorder.record(UInt16(count), at: 10_000_000)
        recorder.record(UInt16(count + 1), at: 20_000_000)  // 10 s later: more than a 16-bit delta (8.19 s)
        let apart = try wire(recorder.feedback(senderSSRC: 1, mediaSSRC: 2))
        #expect(apart.map(received) == [[UInt16(count)], [UInt16(count + 1)]])
        #expect(apart[1][0].arrivalTime.map { abs($0 - 20_000_000) <= 125 } == true)
    }
}
