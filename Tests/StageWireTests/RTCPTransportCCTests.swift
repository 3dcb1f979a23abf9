import StageWire
import Testing

/// draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1 transport-cc feedback.
@Suite struct RTCPTransportCCTests {
    /// Captured Chrome feedback (Wireshark dissection): one run length chunk of nine small deltas.
    static let capturedRunLength: [UInt8] = [
        0xAF, 0xCD, 0x00, 0x07,  // V=2 P=1 FMT=15 | PT=RTPFB 205 | length 7 (32 bytes)
        0x00, 0x00, 0x00, 0x01,  // SSRC of packet sender 1
        0xDD, 0x58, 0x6E, 0xB6,  // SSRC of media source
        0x00, 0x01, 0x00, 0x09,  // base sequence number 1 | packet status count 9
        0x5E, 0x91, 0x10, 0x00,  // reference time 6197520 (×64 ms) | fb pkt count 0
        0x20, 0x09,  //             run length chunk: S=01 (small delta) × 9
        0x1C, 0x0C, 0x2C, 0x38, 0x00, 0x04, 0x00, 0x08, 0x18,  // 9 small deltas (×250 µs)
        0x01,  //                   padding, count 1
    ]

    /// Every chunk type in one packet: a run length, a one-bit and a two-bit status vector,
    /// with small, large and negative deltas.
    static let allChunkTypes: [UInt8] = [
        0xAF, 0xCD, 0x00, 0x09,  // V=2 P=1 FMT=15 | PT=205 | length 9 (40 bytes)
        0x00, 0x00, 0x00, 0x01,  // sender SSRC 1
        0x11, 0x22, 0x33, 0x44,  // media SSRC
        0x00, 0x64, 0x00, 0x18,  // base 100 | status count 24
        0xFF, 0xFF, 0xFE, 0x05,  // reference time −2 (×64 ms) | fb pkt count 5
        0x20, 0x03,  //             run length: small × 3 (seq 100–102)
        0xAC, 0x01,  //             1-bit vector 1 0 1 1 0 0 0 0 0 0 0 0 0 1 (seq 103–116)
        0xE4, 0x02,  //             2-bit vector L S − − − − L (seq 117–123)
        0x04, 0x08, 0x00,  //       run length deltas: 1 ms, 2 ms, 0
        0x01, 0x02, 0xFF, 0x10,  // 1-bit vector deltas
        0xFF, 0xFC,  //             large −4 (−1 ms)
        0x14,  //                   small 20
        0x03, 0xE8,  //             large 1000 (250 ms)
        0x00, 0x02,  //             padding, count 2
    ]

    @Test("draft-holmer-…-01 §3.1: captured run length feedback, every field")
    func capturedFeedback() throws {
        let feedback = try RTCPTransportCCFeedback(parsing: Self.capturedRunLength)
        #expect(feedback.senderSSRC == 1 && feedback.mediaSSRC == 0xDD58_6EB6)
        #expect(feedback.baseSequenceNumber == 1 && feedback.packetStatusCount == 9)
        #expect(feedback.referenceTime == 6_197_520 && feedback.feedbackPacketCount == 0)
        #expect(feedback.chunks == [.runLength(.receivedSmallDelta, length: 9)])
        #expect(feedback.receiveDeltas == [28, 12, 44, 56, 0, 4, 0, 8, 24])
        let results = feedback.packetResults()
        #expect(results.map(\.sequenceNumber) == Array(1...9))
        let reference = Int64(6_197_520) * 64_000
        #expect(results.first?.arrivalTime == reference + 7_000)
        #expect(results.last?.arrivalTime == reference + 44_000)
        #expect(try feedback.serialized() == Self.capturedRunLength)
    }

    @Test("draft-holmer-…-01 §3.1.3, §3.1.4: run length, one-bit and two-bit chunks with large deltas")
    func allChunkTypesFeedback() throws {
        let feedback = try RTCPTransportCCFeedback(parsing: Self.allChunkTypes)
        #expect(feedback.referenceTime == -2 && feedback.feedbackPacketCount == 5 && feedback.packetStatusCount == 24)
        #expect(feedback.chunks.map(\.kind) == [.runLength, .oneBitVector, .twoBitVector])
        #expect(feedback.receiveDeltas == [4, 8, 0, 1, 2, 255, 16, -4, 20, 1000])
        let received = feedback.packetResults().filter { $0.status != .notReceived }
        #expect(received.map(\.sequenceNumber) == [100, 101, 102, 103, 105, 106, 116, 117, 118, 123])
        #expect(received.map(\.status) == [.receivedSmallDelta, .receivedSmallDelta, .receivedSmallDelta, .receivedSmallDelta,
            .receivedSmallDelta, .receivedSmallDelta, .receivedSmallDelta, .receivedLargeDelta, .receivedSmallDelta, .receivedLargeDelta])
        #expect(received.map { $0.arrivalTime ?? 0 } == [
            -127_000, -125_000, -125_000, -124_750, -124_250, -60_500, -56_500, -57_500, -52_500, 197_500,
        ])
        #expect(try feedback.serialized() == Self.allChunkTypes)
    }

    @Test("draft-holmer-…-01 §3.1.3: run length chunk examples", arguments: [
        (UInt16(0x00DD), UInt8(0), 221),  // example 1: 221 × not received
        (0x6018, 3, 24),  //                example 2: 24 × symbol 11 (reserved in §3.1.1)
    ])
    func runLengthExamples(_ raw: UInt16, _ symbol: UInt8, _ length: Int) {
        let chunk = RTCPTransportCCChunk(rawValue: raw)
        #expect(chunk.kind == .runLength && chunk.statusCount == length)
        #expect(chunk.symbol(at: 0) == symbol && chunk.symbol(at: length - 1) == symbol)
    }

    @Test("draft-holmer-…-01 §3.1.4: status vector chunk examples")
    func statusVectorExamples() {
        let oneBit = RTCPTransportCCChunk(rawValue: 0x9F1C)
        #expect(oneBit.kind == .oneBitVector && oneBit.statusCount == 14)
        #expect((0..<14).map(oneBit.symbol(at:)) == [0, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0])
        let twoBit = RTCPTransportCCChunk(rawValue: 0xCD50)
        #expect(twoBit.kind == .twoBitVector && twoBit.statusCount == 7)
        #expect((0..<7).map(twoBit.symbol(at:)) == [0, 3, 1, 1, 1, 0, 0])
        #expect(twoBit.status(at: 1) == nil)
        #expect(RTCPTransportCCChunk.oneBitVector([.notReceived, .receivedSmallDelta]) == RTCPTransportCCChunk(rawValue: 0x9000))
        #expect(RTCPTransportCCChunk.oneBitVector([.receivedLargeDelta]) == nil)
        #expect(RTCPTransportCCChunk.twoBitVector([RTCPTransportCCStatus](repeating: .notReceived, count: 8)) == nil)
    }

    @Test("draft-holmer-…-01 §3.1: building from per-packet deltas chooses chunks and round-trips")
    func buildFromDeltas() throws {
        let allSmall = try RTCPTransportCCFeedback(
            senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 65530, referenceTime: 100, feedbackPacketCount: 1,
            receiveDeltas: [Int16?](repeating: 4, count: 20))
        #expect(allSmall.chunks == [.runLength(.receivedSmallDelta, length: 20)])
        #expect(allSmall.packetResults().last?.sequenceNumber == 13)  // wraps past 65535

        let sparse: [Int16?] = [1, nil, 2, nil, 3, nil, 4, nil, 5]
        let vector = try RTCPTransportCCFeedback(
            senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 0, referenceTime: 0, feedbackPacketCount: 2, receiveDeltas: sparse)
        #expect(vector.chunks.map(\.kind) == [.oneBitVector])

        let mixed: [Int16?] = [300, nil, -1, 7] + [Int16?](repeating: nil, count: 30) + [0]
        let built = try RTCPTransportCCFeedback(
            senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 10, referenceTime: -5, feedbackPacketCount: 3, receiveDeltas: mixed)
        #expect(built.chunks.map(\.kind) == [.twoBitVector, .runLength, .oneBitVector])
        let parsed = try RTCPTransportCCFeedback(parsing: built.serialized())
        #expect(parsed == built)
        #expect(parsed.packetResults().map(\.receiveDelta) == mixed)
        #expect(rtcpError { try RTCPTransportCCFeedback(senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 0, referenceTime: 0,
            feedbackPacketCount: 0, receiveDeltas: []) } == .transportCCEmpty)
    }

    @Test("draft-holmer-…-01 §3.1: deltas that disagree with the chunks cannot be written")
    func deltaMismatch() {
        var feedback = RTCPTransportCCFeedback(
            senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 0, packetStatusCount: 2, referenceTime: 0,
            feedbackPacketCount: 0, chunks: [.runLength(.receivedSmallDelta, length: 2)], receiveDeltas: [1])
        #expect(rtcpError { try feedback.serialized() } == .transportCCDeltaMismatch)
        feedback.receiveDeltas = [1, 256]
        #expect(rtcpError { try feedback.serialized() } == .transportCCDeltaMismatch)
        feedback.receiveDeltas = [1, 2]
        feedback.packetStatusCount = 3
        #expect(rtcpError { try feedback.serialized() } == .transportCCStatusCountOverflow(statusCount: 3, described: 2))
    }
}
