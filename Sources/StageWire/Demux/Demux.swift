/// Demultiplexing of the one UDP port that carries STUN, DTLS, RTP and RTCP together.
///
/// Follows RFC 7983 §7 (first-byte ranges) and RFC 5761 §4 (RTP versus RTCP by the second
/// byte). Every function here is branch-only and allocation-free so it can run on every
/// datagram before any parser does.
public enum Demux {
    /// RFC 7983 §7 first-byte ranges, inclusive.
    public enum FirstByte {
        public static let stun: ClosedRange<UInt8> = 0...3
        public static let zrtp: ClosedRange<UInt8> = 16...19
        public static let dtls: ClosedRange<UInt8> = 20...63
        public static let turnChannel: ClosedRange<UInt8> = 64...79
        public static let rtpOrRTCP: ClosedRange<UInt8> = 128...191
    }

    /// RFC 5761 §4: a second byte in 192–223 (RTCP packet types 192–223, i.e. RTP payload types
    /// 64–95 with the marker bit set) means RTCP.
    public static let rtcpSecondByte: ClosedRange<UInt8> = 192...223

    /// Classifies a datagram by its first byte (RFC 7983 §7) and, in the RTP/RTCP range, by its
    /// second byte (RFC 5761 §4).
    /// - Parameters:
    ///   - first: the datagram's first byte.
    ///   - second: its second byte, or `nil` when the datagram is one byte long.
    @inlinable
    public static func classify(first: UInt8, second: UInt8?) -> DatagramKind {
        if first <= 3 { return .stun }
        if first < 16 { return .unknown }
        if first <= 19 { return .zrtp }
        if first <= 63 { return .dtls }
        if first <= 79 { return .turnChannel }
        if first < 128 || first > 191 { return .unknown }
        guard let second else { return .unknown }
        return isRTCP(secondByte: second) ? .rtcp : .rtp
    }

    /// Classifies a whole datagram. An empty datagram is `.unknown`.
    @inlinable
    public static func classify(_ datagram: UnsafeRawBufferPointer) -> DatagramKind {
        guard datagram.count > 0 else { return .unknown }
        let second: UInt8? = datagram.count > 1 ? datagram[1] : nil
        return classify(first: datagram[0], second: second)
    }

    /// Classifies a whole datagram held in an array (or array slice). Empty is `.unknown`.
    @inlinable
    public static func classify<Bytes: RandomAccessCollection>(_ datagram: Bytes) -> DatagramKind
    where Bytes.Element == UInt8 {
        guard let first = datagram.first else { return .unknown }
        let next = datagram.index(after: datagram.startIndex)
        let second: UInt8? = next < datagram.endIndex ? datagram[next] : nil
        return classify(first: first, second: second)
    }

    /// RFC 5761 §4: whether an RTP-range datagram is RTCP, judged by its second byte.
    @inlinable
    public static func isRTCP(secondByte: UInt8) -> Bool {
        secondByte >= 192 && secondByte <= 223
    }
}
