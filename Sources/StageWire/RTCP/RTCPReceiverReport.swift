/// A Receiver Report (RFC 3550 §6.4.2): the reporter's SSRC, up to 31 reception report blocks,
/// then optional profile-specific extension bytes. An RR with no block is valid (and common).
///
/// ```
/// |V=2|P|    RC   |   PT=RR=201   |             length            |
/// |                     SSRC of packet sender                     |
/// |                 report blocks (24 bytes each) …               |
/// |                  profile-specific extensions                  |
/// ```
public struct RTCPReceiverReport: RTCPPacketBody {
    public static let packetType = RTCPPacketType.receiverReport

    public var ssrc: UInt32
    public var reports: [RTCPReceptionReport]
    /// Bytes after the report blocks, kept raw.
    public var profileExtensions: [UInt8]

    public init(ssrc: UInt32, reports: [RTCPReceptionReport] = [], profileExtensions: [UInt8] = []) {
        self.ssrc = ssrc
        self.reports = reports
        self.profileExtensions = profileExtensions
    }

    public var countField: Int { reports.count }
    public var bodySize: Int { 4 + reports.count * RTCPReceptionReport.size + profileExtensions.count }

    public init(header: RTCPHeader, body: UnsafeRawBufferPointer) throws(RTCPError) {
        let needed = 4 + Int(header.count) * RTCPReceptionReport.size
        var reader = RTPByteReader(body)
        guard let ssrc = reader.readUInt32() else {
            throw .packetTooShort(type: Self.packetType, needed: needed, got: body.count)
        }
        let reports = try RTCPReceptionReport.readBlocks(Int(header.count), from: &reader, type: Self.packetType, needed: needed)
        self.init(ssrc: ssrc, reports: reports, profileExtensions: reader.readBytes(reader.remaining) ?? [])
    }

    public func serializeBody(into out: inout [UInt8]) throws(RTCPError) {
        out.appendBigEndian(ssrc)
        for report in reports { report.serialize(into: &out) }
        out.append(contentsOf: profileExtensions)
    }
}
