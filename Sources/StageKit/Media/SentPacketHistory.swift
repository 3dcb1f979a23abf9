/// The last packets a publisher sent on each of its SSRCs, to resend what the server reports
/// lost (RFC 4585 §6.2.1 Generic NACK). Packets are kept as sent (the arrays are shared, not
/// copied) in one ring per SSRC, indexed by sequence number.
struct SentPacketHistory: Sendable {
    /// Packets kept per SSRC: about 2 s of a 2.5 Mbps layer; a NACK for anything older is late
    /// anyway.
    static let size = 512
    private var rings: [UInt32: [[UInt8]?]] = [:]

    /// Keeps `packets` (whole RTP packets, as sent).
    mutating func record(_ packets: [[UInt8]]) {
        for packet in packets {
            guard let (ssrc, sequence) = Self.identity(of: packet) else { continue }
            rings[ssrc, default: Array(repeating: nil, count: Self.size)][Int(sequence) % Self.size] = packet
        }
    }

    /// The packets of `ssrc` with these sequence numbers that are still kept, in the order asked.
    func packets(ssrc: UInt32, sequences: [UInt16]) -> [[UInt8]] {
        guard let ring = rings[ssrc] else { return [] }
        return sequences.compactMap { sequence in
            guard let packet = ring[Int(sequence) % Self.size], Self.identity(of: packet)?.sequence == sequence else { return nil }
            return packet
        }
    }

    /// SSRC and sequence number of an RTP packet (RFC 3550 §5.1), if it has a fixed header.
    private static func identity(of packet: [UInt8]) -> (ssrc: UInt32, sequence: UInt16)? {
        guard packet.count >= 12 else { return nil }
        let ssrc = UInt32(packet[8]) << 24 | UInt32(packet[9]) << 16 | UInt32(packet[10]) << 8 | UInt32(packet[11])
        return (ssrc, UInt16(packet[2]) << 8 | UInt16(packet[3]))
    }
}
