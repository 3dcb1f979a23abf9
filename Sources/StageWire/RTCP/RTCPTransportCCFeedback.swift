/// Transport-wide congestion control feedback
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1): RTPFB FMT 15 reporting, for a
/// range of transport-wide sequence numbers, which packets arrived and when.
///
/// ```
/// |V=2|P|  FMT=15 |    PT=205     |           length              |
/// |                     SSRC of packet sender                     |
/// |                      SSRC of media source                     |
/// |      base sequence number     |      packet status count      |
/// |                 reference time                | fb pkt. count |
/// |          packet chunk         |         packet chunk          |  …
/// |         recv delta            |  recv delta   | zero padding  |  …
/// ```
///
/// Stored as on the wire — chunks and deltas — so parsing never expands to one entry per
/// packet (a count of 65535 fits in 16 bytes of run lengths). `packetResults()` expands;
/// `init(…receiveDeltas:)` builds from per-packet deltas.
public struct RTCPTransportCCFeedback: RTCPPacketBody {
    public static let packetType = RTCPPacketType.transportFeedback
    public static let feedbackFormat: UInt8? = RTCPFeedbackFormat.transportCC
    /// Bytes before the first chunk.
    static let fixedBodySize = 16
    /// The reference time unit, in microseconds (64 ms).
    public static let referenceTimeUnit: Int64 = 64_000
    /// The receive delta unit, in microseconds (250 µs).
    public static let deltaUnit: Int64 = 250

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    /// Transport-wide sequence number of the first packet described.
    public var baseSequenceNumber: UInt16
    /// How many packets, from the base, the chunks describe.
    public var packetStatusCount: UInt16
    /// Signed 24-bit time of the first received packet, in 64 ms units.
    public var referenceTime: Int32
    /// Feedback packet counter, to detect lost feedback.
    public var feedbackPacketCount: UInt8
    public var chunks: [RTCPTransportCCChunk]
    /// One delta per received packet, in 250 µs units: small ones 0…255, large ones signed.
    public var receiveDeltas: [Int16]

    public init(
        senderSSRC: UInt32, mediaSSRC: UInt32, baseSequenceNumber: UInt16, packetStatusCount: UInt16,
        referenceTime: Int32, feedbackPacketCount: UInt8, chunks: [RTCPTransportCCChunk], receiveDeltas: [Int16]
    ) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.baseSequenceNumber = baseSequenceNumber
        self.packetStatusCount = packetStatusCount
        self.referenceTime = referenceTime
        self.feedbackPacketCount = feedbackPacketCount
        self.chunks = chunks
        self.receiveDeltas = receiveDeltas
    }

    /// Calls `body` with each packet index (0-based from the base) and raw symbol, for the
    /// first `packetStatusCount` packets the chunks describe.
    func forEachSymbol(_ body: (Int, UInt8) throws(RTCPError) -> Void) throws(RTCPError) {
        let total = Int(packetStatusCount)
        var index = 0
        for chunk in chunks where index < total {
            let described = min(chunk.statusCount, total - index)
            for position in 0..<described {
                try body(index, chunk.symbol(at: position))
                index += 1
            }
        }
    }

    public var countField: Int { Int(RTCPFeedbackFormat.transportCC) }

    public var bodySize: Int {
        var deltaBytes = 0
        try? forEachSymbol { _, symbol in deltaBytes += symbol == 3 ? 0 : Int(symbol) }
        return Self.fixedBodySize + 2 * chunks.count + deltaBytes
    }

    public init(header: RTCPHeader, body: UnsafeRawBufferPointer) throws(RTCPError) {
        var reader = RTPByteReader(body)
        let ssrcs = try RTCPFeedbackSSRCs(reader: &reader, type: Self.packetType, needed: Self.fixedBodySize + 2)
        guard let base = reader.readUInt16(), let count = reader.readUInt16(), let reference = reader.readUInt24(),
            let feedbackCount = reader.readUInt8()
        else { throw .packetTooShort(type: Self.packetType, needed: Self.fixedBodySize + 2, got: body.count) }
        guard count > 0 else { throw .transportCCEmpty }

        var chunks: [RTCPTransportCCChunk] = []
        var described = 0
        var deltaBytes = 0
        while described < Int(count) {
            guard let raw = reader.readUInt16() else {
                throw .transportCCStatusCountOverflow(statusCount: Int(count), described: described)
            }
            let chunk = RTCPTransportCCChunk(rawValue: raw)
            chunks.append(chunk)
            let used = min(chunk.statusCount, Int(count) - described)
            for position in 0..<used {
                let symbol = chunk.symbol(at: position)
                guard symbol != 3 else { throw .transportCCReservedStatus(index: described + position) }
                deltaBytes += Int(symbol)
            }
            described += used
        }
        guard reader.remaining >= deltaBytes else {
            throw .transportCCDeltasTruncated(needed: deltaBytes, got: reader.remaining)
        }

        var feedback = RTCPTransportCCFeedback(
            senderSSRC: ssrcs.sender, mediaSSRC: ssrcs.media, baseSequenceNumber: base, packetStatusCount: count,
            referenceTime: Int32(bitPattern: reference << 8) >> 8, feedbackPacketCount: feedbackCount,
            chunks: chunks, receiveDeltas: [])
        var deltas: [Int16] = []
        deltas.reserveCapacity(deltaBytes)
        try feedback.forEachSymbol { _, symbol throws(RTCPError) in
            // Lengths were checked above, so these reads cannot run short; stay defensive anyway.
            switch symbol {
            case 1:
                guard let small = reader.readUInt8() else { throw .transportCCDeltasTruncated(needed: deltaBytes, got: 0) }
                deltas.append(Int16(small))
            case 2:
                guard let large = reader.readUInt16() else { throw .transportCCDeltasTruncated(needed: deltaBytes, got: 0) }
                deltas.append(Int16(bitPattern: large))
            default:
                break
            }
        }
        feedback.receiveDeltas = deltas
        self = feedback
    }

    /// Appends the body; on error `serialize(into:)` removes what was appended.
    public func serializeBody(into out: inout [UInt8]) throws(RTCPError) {
        guard packetStatusCount > 0 else { throw .transportCCEmpty }
        out.appendBigEndian(senderSSRC)
        out.appendBigEndian(mediaSSRC)
        out.appendBigEndian(baseSequenceNumber)
        out.appendBigEndian(packetStatusCount)
        out.appendWire24(UInt32(bitPattern: referenceTime))
        out.appendBigEndian(feedbackPacketCount)
        for chunk in chunks { out.appendBigEndian(chunk.rawValue) }
        var next = 0
        var described = 0
        try forEachSymbol { index, symbol throws(RTCPError) in
            described += 1
            guard symbol != 3 else { throw .transportCCReservedStatus(index: index) }
            guard symbol != 0 else { return }
            guard next < receiveDeltas.count else { throw .transportCCDeltaMismatch }
            let delta = receiveDeltas[next]
            next += 1
            if symbol == 1 {
                guard delta >= 0, delta <= 255 else { throw .transportCCDeltaMismatch }
                out.append(UInt8(delta))
            } else {
                out.appendBigEndian(UInt16(bitPattern: delta))
            }
        }
        guard described == Int(packetStatusCount) else {
            throw .transportCCStatusCountOverflow(statusCount: Int(packetStatusCount), described: described)
        }
        guard next == receiveDeltas.count else { throw .transportCCDeltaMismatch }
    }
}
