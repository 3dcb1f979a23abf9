/// A Generic NACK (RFC 4585 §6.2.1): RTPFB FMT 1, one or more FCI entries of a lost packet ID
/// and a bitmask of the 16 following packets also lost.
///
/// ```
/// |V=2|P|  FMT=1  |   PT=RTPFB=205 |          length              |
/// |                  SSRC of packet sender                        |
/// |                  SSRC of media source                         |
/// |            PID                |             BLP               |  (repeated)
/// ```
public struct RTCPGenericNACK: RTCPPacketBody {
    public static let packetType = RTCPPacketType.transportFeedback
    public static let feedbackFormat: UInt8? = RTCPFeedbackFormat.genericNACK

    /// One FCI entry: PID and BLP (bit i set ⇒ PID + i + 1 lost).
    public struct Entry: Hashable, Sendable {
        public var packetID: UInt16
        public var lostBitmask: UInt16

        public init(packetID: UInt16, lostBitmask: UInt16 = 0) {
            self.packetID = packetID
            self.lostBitmask = lostBitmask
        }

        /// The sequence numbers this entry reports lost, PID first, in order (wrapping at 2^16).
        public var sequenceNumbers: [UInt16] {
            var numbers = [packetID]
            for bit in 0..<16 where lostBitmask & (1 << bit) != 0 {
                numbers.append(packetID &+ UInt16(bit + 1))
            }
            return numbers
        }
    }

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    public var entries: [Entry]

    public init(senderSSRC: UInt32, mediaSSRC: UInt32, entries: [Entry]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.entries = entries
    }

    /// Packs lost sequence numbers into as few entries as a single pass allows: a number within
    /// 1…16 after the current entry's PID sets a BLP bit, anything else starts a new entry.
    /// Give the numbers in ascending (wrap-aware) order for the tightest packing; duplicates of
    /// a PID are dropped.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32, lostSequenceNumbers: some Sequence<UInt16>) {
        var entries: [Entry] = []
        for number in lostSequenceNumbers {
            if let last = entries.last {
                let distance = number &- last.packetID
                if distance == 0 { continue }
                if distance <= 16 {
                    entries[entries.count - 1].lostBitmask |= 1 << (distance - 1)
                    continue
                }
            }
            entries.append(Entry(packetID: number))
        }
        self.init(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, entries: entries)
    }

    /// Every sequence number reported lost, entry by entry.
    public var lostSequenceNumbers: [UInt16] { entries.flatMap(\.sequenceNumbers) }

    public var countField: Int { Int(RTCPFeedbackFormat.genericNACK) }
    public var bodySize: Int { RTCPFeedbackSSRCs.size + 4 * entries.count }

    public init(header: RTCPHeader, body: UnsafeRawBufferPointer) throws(RTCPError) {
        var reader = RTPByteReader(body)
        let ssrcs = try RTCPFeedbackSSRCs(reader: &reader, type: Self.packetType, needed: RTCPFeedbackSSRCs.size + 4)
        guard reader.remaining >= 4 else { throw .nackWithoutFCI }
        var entries: [Entry] = []
        entries.reserveCapacity(reader.remaining / 4)
        while let packetID = reader.readUInt16(), let mask = reader.readUInt16() {
            entries.append(Entry(packetID: packetID, lostBitmask: mask))
        }
        self.init(senderSSRC: ssrcs.sender, mediaSSRC: ssrcs.media, entries: entries)
    }

    public func serializeBody(into out: inout [UInt8]) throws(RTCPError) {
        guard !entries.isEmpty else { throw .nackWithoutFCI }
        out.appendBigEndian(senderSSRC)
        out.appendBigEndian(mediaSSRC)
        for entry in entries {
            out.appendBigEndian(entry.packetID)
            out.appendBigEndian(entry.lostBitmask)
        }
    }
}
