extension RTCPTransportCCFeedback {
    /// What the feedback says about one packet.
    public struct PacketResult: Hashable, Sendable {
        /// Transport-wide sequence number.
        public var sequenceNumber: UInt16
        public var status: RTCPTransportCCStatus
        /// Delta from the previous received packet (or the reference time), in 250 µs units;
        /// `nil` when not received.
        public var receiveDelta: Int16?
        /// Arrival time in microseconds in the receiver's time base (reference time × 64 ms plus
        /// the deltas so far); `nil` when not received.
        public var arrivalTime: Int64?

        public init(sequenceNumber: UInt16, status: RTCPTransportCCStatus, receiveDelta: Int16? = nil, arrivalTime: Int64? = nil) {
            self.sequenceNumber = sequenceNumber
            self.status = status
            self.receiveDelta = receiveDelta
            self.arrivalTime = arrivalTime
        }
    }

    /// Builds feedback from one entry per packet starting at `baseSequenceNumber`: `nil` for a
    /// packet not received, else its receive delta in 250 µs units (0…255 is written as a small
    /// delta, anything else as large).
    ///
    /// Chunks are chosen greedily: a run length chunk for 14 or more equal statuses (or 7 or
    /// more when a large delta is near), else a one-bit vector when the next 14 need no large
    /// delta, else a two-bit vector of 7 (§3.1.3, §3.1.4).
    /// - Throws: `RTCPError.transportCCEmpty` for no packet, `.countTooLarge` over 65535.
    public init(
        senderSSRC: UInt32, mediaSSRC: UInt32, baseSequenceNumber: UInt16, referenceTime: Int32,
        feedbackPacketCount: UInt8, receiveDeltas: [Int16?]
    ) throws(RTCPError) {
        guard !receiveDeltas.isEmpty else { throw .transportCCEmpty }
        guard receiveDeltas.count <= Int(UInt16.max) else { throw .countTooLarge(receiveDeltas.count) }
        let statuses: [RTCPTransportCCStatus] = receiveDeltas.map { delta in
            guard let delta else { return .notReceived }
            return (0...255).contains(delta) ? .receivedSmallDelta : .receivedLargeDelta
        }
        self.init(
            senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, baseSequenceNumber: baseSequenceNumber,
            packetStatusCount: UInt16(statuses.count), referenceTime: referenceTime,
            feedbackPacketCount: feedbackPacketCount, chunks: Self.encodeChunks(statuses),
            receiveDeltas: receiveDeltas.compactMap { $0 })
    }

    static func encodeChunks(_ statuses: [RTCPTransportCCStatus]) -> [RTCPTransportCCChunk] {
        var chunks: [RTCPTransportCCChunk] = []
        var index = 0
        while index < statuses.count {
            let status = statuses[index]
            var run = 1
            while index + run < statuses.count, statuses[index + run] == status, run < RTCPTransportCCChunk.maxRunLength {
                run += 1
            }
            let window = statuses[index..<min(index + RTCPTransportCCChunk.oneBitCapacity, statuses.count)]
            let needsTwoBits = window.contains(.receivedLargeDelta)
            if run >= RTCPTransportCCChunk.oneBitCapacity || (needsTwoBits && run >= RTCPTransportCCChunk.twoBitCapacity) {
                chunks.append(.runLength(status, length: run))
                index += run
            } else if !needsTwoBits, let chunk = RTCPTransportCCChunk.oneBitVector(window) {
                chunks.append(chunk)
                index += window.count
            } else {
                let end = min(index + RTCPTransportCCChunk.twoBitCapacity, statuses.count)
                // Seven statuses always fit a two-bit vector.
                chunks.append(RTCPTransportCCChunk.twoBitVector(statuses[index..<end]) ?? .runLength(status, length: 1))
                index = end
            }
        }
        return chunks
    }

    /// One result per packet in `packetStatusCount`, in sequence order. Allocates one entry per
    /// packet: for congestion control, not for the per-packet forwarding path.
    public func packetResults() -> [PacketResult] {
        var results: [PacketResult] = []
        results.reserveCapacity(Int(packetStatusCount))
        var nextDelta = 0
        var time = Int64(referenceTime) * Self.referenceTimeUnit
        try? forEachSymbol { index, symbol in
            let sequenceNumber = baseSequenceNumber &+ UInt16(truncatingIfNeeded: index)
            guard let status = RTCPTransportCCStatus(rawValue: symbol), status != .notReceived,
                nextDelta < receiveDeltas.count
            else {
                results.append(PacketResult(sequenceNumber: sequenceNumber, status: .notReceived))
                return
            }
            let delta = receiveDeltas[nextDelta]
            nextDelta += 1
            time += Int64(delta) * Self.deltaUnit
            results.append(PacketResult(sequenceNumber: sequenceNumber, status: status, receiveDelta: delta, arrivalTime: time))
        }
        return results
    }
}
