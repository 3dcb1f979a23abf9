/// One report block of a Sender or Receiver Report (RFC 3550 §6.4.1):
///
/// ```
/// |                 SSRC_1 (SSRC of first source)                 |
/// | fraction lost |       cumulative number of packets lost       |
/// |           extended highest sequence number received           |
/// |                      interarrival jitter                      |
/// |                         last SR (LSR)                         |
/// |                   delay since last SR (DLSR)                  |
/// ```
public struct RTCPReceptionReport: Hashable, Sendable {
    /// Bytes of one block.
    public static let size = 24
    /// The range of the signed 24-bit cumulative loss.
    public static let cumulativeLostRange: ClosedRange<Int32> = -0x80_0000...0x7F_FFFF

    /// The source this block reports on.
    public var ssrc: UInt32
    /// Fraction lost since the previous report, as a fixed-point number with the binary point
    /// at the left edge (lost × 256 / expected).
    public var fractionLost: UInt8
    /// Cumulative packets lost, a signed 24-bit value (negative with duplicates). Values beyond
    /// ±2^23 are clamped when written.
    public var cumulativeLost: Int32
    /// Cycles (high 16 bits) and highest sequence number received (low 16 bits).
    public var extendedHighestSequenceNumber: UInt32
    /// Interarrival jitter in timestamp units (RFC 3550 §6.4.1, A.8).
    public var jitter: UInt32
    /// The middle 32 bits of the NTP timestamp of the last SR received from this source.
    public var lastSenderReport: UInt32
    /// Delay since that SR, in units of 1/65536 s.
    public var delaySinceLastSenderReport: UInt32

    public init(
        ssrc: UInt32, fractionLost: UInt8 = 0, cumulativeLost: Int32 = 0, extendedHighestSequenceNumber: UInt32 = 0,
        jitter: UInt32 = 0, lastSenderReport: UInt32 = 0, delaySinceLastSenderReport: UInt32 = 0
    ) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.extendedHighestSequenceNumber = extendedHighestSequenceNumber
        self.jitter = jitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }

    /// Reads one block, or `nil` if fewer than 24 bytes remain.
    init?(reader: inout RTPByteReader) {
        guard reader.remaining >= Self.size, let ssrc = reader.readUInt32(), let lossWord = reader.readUInt32(),
            let highest = reader.readUInt32(), let jitter = reader.readUInt32(), let lsr = reader.readUInt32(),
            let dlsr = reader.readUInt32()
        else { return nil }
        // Sign-extend the low 24 bits of the loss word.
        let lost = Int32(bitPattern: lossWord << 8) >> 8
        self.init(
            ssrc: ssrc, fractionLost: UInt8(truncatingIfNeeded: lossWord >> 24), cumulativeLost: lost,
            extendedHighestSequenceNumber: highest, jitter: jitter, lastSenderReport: lsr, delaySinceLastSenderReport: dlsr)
    }

    func serialize(into out: inout [UInt8]) {
        out.appendBigEndian(ssrc)
        out.appendBigEndian(fractionLost)
        let lost = min(max(cumulativeLost, Self.cumulativeLostRange.lowerBound), Self.cumulativeLostRange.upperBound)
        out.appendWire24(UInt32(bitPattern: lost))
        out.appendBigEndian(extendedHighestSequenceNumber)
        out.appendBigEndian(jitter)
        out.appendBigEndian(lastSenderReport)
        out.appendBigEndian(delaySinceLastSenderReport)
    }

    /// Reads `count` blocks, throwing `packetTooShort` for `type` if they do not fit.
    static func readBlocks(
        _ count: Int, from reader: inout RTPByteReader, type: RTCPPacketType, needed: Int
    ) throws(RTCPError) -> [RTCPReceptionReport] {
        guard reader.remaining >= count * size else { throw .packetTooShort(type: type, needed: needed, got: reader.end) }
        var reports: [RTCPReceptionReport] = []
        reports.reserveCapacity(count)
        for _ in 0..<count {
            guard let report = RTCPReceptionReport(reader: &reader) else {
                throw .packetTooShort(type: type, needed: needed, got: reader.end)
            }
            reports.append(report)
        }
        return reports
    }
}
