/// A Full Intra Request (RFC 5104 §4.3.1): PSFB FMT 4; each FCI entry names a media sender and
/// a command sequence number (incremented per new request, so repeats are recognisable).
///
/// ```
/// |V=2|P|  FMT=4  |   PT=PSFB=206 |          length               |
/// |                  SSRC of packet sender                        |
/// |          SSRC of media source (unused, 0)                     |
/// |                              SSRC                             |  (repeated)
/// | Seq nr.       |    Reserved                                   |
/// ```
public struct RTCPFullIntraRequest: RTCPPacketBody {
    public static let packetType = RTCPPacketType.payloadFeedback
    public static let feedbackFormat: UInt8? = RTCPFeedbackFormat.fullIntraRequest
    static let entrySize = 8

    /// One FCI entry.
    public struct Entry: Hashable, Sendable {
        public var ssrc: UInt32
        public var sequenceNumber: UInt8

        public init(ssrc: UInt32, sequenceNumber: UInt8) {
            self.ssrc = ssrc
            self.sequenceNumber = sequenceNumber
        }
    }

    public var senderSSRC: UInt32
    /// RFC 5104 §4.3.1.2: SHALL be 0; kept as received.
    public var mediaSSRC: UInt32
    public var entries: [Entry]

    public init(senderSSRC: UInt32, mediaSSRC: UInt32 = 0, entries: [Entry]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.entries = entries
    }

    public var countField: Int { Int(RTCPFeedbackFormat.fullIntraRequest) }
    public var bodySize: Int { RTCPFeedbackSSRCs.size + Self.entrySize * entries.count }

    /// - Throws: `RTCPError.firInvalidFCI` unless the FCI is a non-empty multiple of 8 bytes
    ///   (as libwebrtc checks).
    public init(header: RTCPHeader, body: UnsafeRawBufferPointer) throws(RTCPError) {
        var reader = RTPByteReader(body)
        let ssrcs = try RTCPFeedbackSSRCs(
            reader: &reader, type: Self.packetType, needed: RTCPFeedbackSSRCs.size + Self.entrySize)
        let fci = reader.remaining
        guard fci > 0, fci % Self.entrySize == 0 else { throw .firInvalidFCI(bytes: fci) }
        var entries: [Entry] = []
        entries.reserveCapacity(fci / Self.entrySize)
        while let ssrc = reader.readUInt32(), let word = reader.readUInt32() {
            entries.append(Entry(ssrc: ssrc, sequenceNumber: UInt8(truncatingIfNeeded: word >> 24)))
        }
        self.init(senderSSRC: ssrcs.sender, mediaSSRC: ssrcs.media, entries: entries)
    }

    public func serializeBody(into out: inout [UInt8]) throws(RTCPError) {
        guard !entries.isEmpty else { throw .firInvalidFCI(bytes: 0) }
        out.appendBigEndian(senderSSRC)
        out.appendBigEndian(mediaSSRC)
        for entry in entries {
            out.appendBigEndian(entry.ssrc)
            out.appendBigEndian(UInt32(entry.sequenceNumber) << 24)
        }
    }
}
