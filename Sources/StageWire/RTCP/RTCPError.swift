/// Everything the RTCP parsers and serializers can reject (RFC 3550 §6, RFC 4585 §6,
/// RFC 5104 §4.3.1, draft-alvestrand-rmcat-remb-03, draft-holmer-rmcat-transport-wide-cc-extensions-01).
///
/// Each case names what was short or invalid; `description` is a stable one-line text for logs
/// and the case name suits a metrics drop reason.
public enum RTCPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Fewer than the 4 bytes of the common header (RFC 3550 §6.4.1).
    case headerTooShort(needed: Int, got: Int)
    /// The version field is not 2 (RFC 3550 §6.4.1).
    case badVersion(UInt8)
    /// The length field describes more bytes than the buffer holds (RFC 3550 §6.4.1).
    case lengthExceedsBuffer(declared: Int, available: Int)
    /// The P bit is set but the last octet (the padding count) is zero (RFC 3550 §6.4.1).
    case paddingCountZero
    /// The padding count is larger than the packet's body (RFC 3550 §6.4.1).
    case paddingExceedsPacket(padding: Int, available: Int)
    /// 1–3 bytes left after the last packet of a compound: not even a header (RFC 3550 §6.1).
    case trailingBytes(Int)
    /// A compound packet with no packet in it (RFC 3550 §6.1).
    case emptyCompound
    /// The body is too short for what the type and count field promise.
    case packetTooShort(type: RTCPPacketType, needed: Int, got: Int)
    /// A typed parser was handed a packet of another type (or feedback format).
    case wrongPacketType(expected: RTCPPacketType, got: RTCPPacketType, format: UInt8)
    /// An SDES chunk whose items run past the packet or lack the terminating null (RFC 3550 §6.5).
    case sdesChunkTruncated
    /// An SDES item of type END (0), which would end its chunk early when written.
    case sdesEndItem
    /// A BYE reason whose length octet runs past the packet (RFC 3550 §6.6).
    case goodbyeReasonTruncated
    /// A Generic NACK with no FCI entry (RFC 4585 §6.2.1: one or more).
    case nackWithoutFCI
    /// A FIR with no entry or a partial one (RFC 5104 §4.3.1.1: FCI of 8-byte entries).
    case firInvalidFCI(bytes: Int)
    /// A PSFB application-layer feedback parsed as REMB without the "REMB" identifier.
    case rembIdentifierMissing
    /// REMB "Num SSRC" disagrees with the packet length (draft-alvestrand-rmcat-remb-03 §2.2).
    case rembLengthMismatch(expected: Int, got: Int)
    /// REMB mantissa × 2^exp does not fit 64 bits.
    case rembBitrateOverflow(mantissa: UInt32, exponent: UInt8)
    /// Transport-cc feedback with packet status count 0.
    case transportCCEmpty
    /// The packet status count describes more packets than the chunks that fit in the packet
    /// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1.1).
    case transportCCStatusCountOverflow(statusCount: Int, described: Int)
    /// Fewer receive-delta bytes than the received statuses need (§3.1.5).
    case transportCCDeltasTruncated(needed: Int, got: Int)
    /// A status symbol 11 (reserved) within the packet status count (§3.1.1).
    case transportCCReservedStatus(index: Int)
    /// Building feedback whose deltas do not match the chunks' received statuses, or whose small
    /// deltas fall outside 0…255.
    case transportCCDeltaMismatch
    /// More items than the 5-bit count field holds (31), or packets than 16 bits count.
    case countTooLarge(Int)
    /// A value longer than its 8-bit length octet allows (SDES item, BYE reason: 255).
    case valueTooLong(Int)
    /// A packet longer than the 16-bit length field can describe.
    case packetTooLong(bytes: Int)

    public var description: String {
        switch self {
        case let .headerTooShort(needed, got): "RTCP header too short: needed \(needed) bytes, got \(got)"
        case let .badVersion(version): "RTCP version \(version), expected 2"
        case let .lengthExceedsBuffer(declared, available):
            "RTCP length field declares \(declared) bytes, only \(available) remain"
        case .paddingCountZero: "RTCP padding bit set with a zero padding count"
        case let .paddingExceedsPacket(padding, available):
            "RTCP padding count \(padding) exceeds the \(available)-byte body"
        case let .trailingBytes(count): "RTCP compound packet has \(count) trailing bytes"
        case .emptyCompound: "RTCP compound packet is empty"
        case let .packetTooShort(type, needed, got): "RTCP \(type) too short: needed \(needed) bytes, got \(got)"
        case let .wrongPacketType(expected, got, format):
            "RTCP packet is \(got) (count/format \(format)), expected \(expected)"
        case .sdesChunkTruncated: "RTCP SDES chunk truncated or missing its end item"
        case .sdesEndItem: "RTCP SDES item of type END (0) cannot be written"
        case .goodbyeReasonTruncated: "RTCP BYE reason runs past the packet"
        case .nackWithoutFCI: "RTCP Generic NACK without an FCI entry"
        case let .firInvalidFCI(bytes): "RTCP FIR FCI of \(bytes) bytes is not a non-empty multiple of 8"
        case .rembIdentifierMissing: "RTCP application-layer feedback is not REMB"
        case let .rembLengthMismatch(expected, got): "RTCP REMB needs \(expected) bytes for its SSRCs, got \(got)"
        case let .rembBitrateOverflow(mantissa, exponent):
            "RTCP REMB bitrate \(mantissa)×2^\(exponent) overflows 64 bits"
        case .transportCCEmpty: "RTCP transport-cc feedback with packet status count 0"
        case let .transportCCStatusCountOverflow(statusCount, described):
            "RTCP transport-cc status count \(statusCount) exceeds the \(described) packets its chunks describe"
        case let .transportCCDeltasTruncated(needed, got):
            "RTCP transport-cc receive deltas truncated: needed \(needed) bytes, got \(got)"
        case let .transportCCReservedStatus(index): "RTCP transport-cc reserved status symbol at packet \(index)"
        case .transportCCDeltaMismatch: "RTCP transport-cc deltas do not match the chunks' statuses"
        case let .countTooLarge(count): "RTCP count \(count) does not fit its field"
        case let .valueTooLong(length): "RTCP value of \(length) bytes exceeds 255"
        case let .packetTooLong(bytes): "RTCP packet of \(bytes) bytes exceeds the 16-bit length field"
        }
    }
}
