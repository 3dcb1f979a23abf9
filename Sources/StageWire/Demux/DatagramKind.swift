/// What one UDP datagram on the shared media port carries, decided by its first byte as
/// RFC 7983 §7 lays out, and for RTP/RTCP by the second byte as RFC 5761 §4 does.
///
/// The classification is a cheap pre-parse check (mediasoup's `isRTP`): it never reads past the
/// second byte and never allocates. A datagram that passes still has to parse.
@frozen
public enum DatagramKind: UInt8, Hashable, Sendable, CustomStringConvertible {
    /// First byte 0–3: a STUN message (RFC 8489), e.g. an ICE connectivity check.
    case stun
    /// First byte 16–19: ZRTP (RFC 6189). WebRTC does not use it; drop.
    case zrtp
    /// First byte 20–63: a DTLS record (RFC 9147 content types 20–63).
    case dtls
    /// First byte 64–79: a TURN ChannelData message (RFC 8656). An ICE-lite server has no TURN
    /// channels; drop.
    case turnChannel
    /// First byte 128–191 and second byte outside 192–223: RTP (RFC 3550).
    case rtp
    /// First byte 128–191 and second byte 192–223: RTCP sharing the port (RFC 5761 §4).
    case rtcp
    /// Empty, any first byte RFC 7983 leaves unassigned (4–15, 80–127, 192–255), or an RTP/RTCP
    /// first byte with no second byte; drop.
    case unknown

    /// Whether a receiver should drop this kind outright (and count the drop by `description`).
    @inlinable
    public var isDropped: Bool {
        switch self {
        case .zrtp, .turnChannel, .unknown: true
        case .stun, .dtls, .rtp, .rtcp: false
        }
    }

    /// A stable name for metrics and logs: `stun`, `zrtp`, `dtls`, `turn-channel`, `rtp`, `rtcp`,
    /// `unknown`.
    public var description: String {
        switch self {
        case .stun: "stun"
        case .zrtp: "zrtp"
        case .dtls: "dtls"
        case .turnChannel: "turn-channel"
        case .rtp: "rtp"
        case .rtcp: "rtcp"
        case .unknown: "unknown"
        }
    }
}
