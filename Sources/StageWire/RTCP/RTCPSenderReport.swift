/// A Sender Report (RFC 3550 §6.4.1): the sender's clocks and counts, then up to 31 reception
/// report blocks, then optional profile-specific extension bytes.
///
/// ```
/// |V=2|P|    RC   |   PT=SR=200   |             length            |
/// |                         SSRC of sender                        |
/// |              NTP timestamp, most significant word             |
/// |             NTP timestamp, least significant word             |
/// |                         RTP timestamp                         |
/// |                     sender's packet count                     |
/// |                      sender's octet count                     |
/// |                 report blocks (24 bytes each) …               |
/// |                  profile-specific extensions                  |
/// ```
public struct RTCPSenderReport: RTCPPacketBody {
    public static let packetType = RTCPPacketType.senderReport
    /// Bytes of SSRC plus sender info.
    static let fixedBodySize = 24

    public var ssrc: UInt32
    /// Wallclock time as 64-bit NTP (seconds since 1900, 32.32 fixed point).
    public var ntpTime: UInt64
    /// The same instant in the RTP clock of this source.
    public var rtpTime: UInt32
    public var packetCount: UInt32
    public var octetCount: UInt32
    public var reports: [RTCPReceptionReport]
    /// Bytes after the report blocks (RFC 3550 §6.4.1 "profile-specific extensions"), kept raw.
    public var profileExtensions: [UInt8]

    public init(
        ssrc: UInt32, ntpTime: UInt64, rtpTime: UInt32, packetCount: UInt32, octetCount: UInt32,
        reports: [RTCPReceptionReport] = [], profileExtensions: [UInt8] = []
    ) {
        self.ssrc = ssrc
        self.ntpTime = ntpTime
        self.rtpTime = rtpTime
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.reports = reports
        self.profileExtensions = profileExtensions
    }

    public var countField: Int { reports.count }
    public var bodySize: Int { Self.fixedBodySize + reports.count * RTCPReceptionReport.size + profileExtensions.count }

    public init(header: RTCPHeader, body: UnsafeRawBufferPointer) throws(RTCPError) {
        let needed = Self.fixedBodySize + Int(header.count) * RTCPReceptionReport.size
        var reader = RTPByteReader(body)
        guard let ssrc = reader.readUInt32(), let ntp = reader.readUInt64(), let rtp = reader.readUInt32(),
            let packets = reader.readUInt32(), let octets = reader.readUInt32()
        else { throw .packetTooShort(type: Self.packetType, needed: needed, got: body.count) }
        let reports = try RTCPReceptionReport.readBlocks(Int(header.count), from: &reader, type: Self.packetType, needed: needed)
        self.init(
            ssrc: ssrc, ntpTime: ntp, rtpTime: rtp, packetCount: packets, octetCount: octets, reports: reports,
            profileExtensions: reader.readBytes(reader.remaining) ?? [])
    }

    public func serializeBody(into out: inout [UInt8]) throws(RTCPError) {
        out.appendBigEndian(ssrc)
        out.appendBigEndian(ntpTime)
        out.appendBigEndian(rtpTime)
        out.appendBigEndian(packetCount)
        out.appendBigEndian(octetCount)
        for report in reports { report.serialize(into: &out) }
        out.append(contentsOf: profileExtensions)
    }
}
