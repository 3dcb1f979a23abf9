import Metrics

/// Why the media port dropped a datagram, or closed an ICE-TCP connection (the `tcp_` reasons);
/// each is counted in `proscenium_media_dropped_total{reason}`.
public enum MediaDropReason: String, CaseIterable, Sendable {
    case unknownKind = "unknown_kind"
    case malformedSTUN = "malformed_stun"
    case stunNotRequest = "stun_not_binding_request"
    case stunUnknownUsername = "stun_unknown_username"
    case stunBadIntegrity = "stun_bad_integrity"
    case stunBadFingerprint = "stun_bad_fingerprint"
    case unknownAddress = "unknown_address"
    case dtlsFailed = "dtls_failed"
    case notConnected = "srtp_not_ready"
    case srtpAuthentication = "srtp_auth_failed"
    case srtpReplay = "srtp_replay"
    case srtpOther = "srtp_error"
    case malformedRTP = "malformed_rtp"
    case malformedRTCP = "malformed_rtcp"
    case unknownSSRC = "unknown_ssrc"
    case unknownRID = "unknown_rid"
    case retransmissionNotForwarded = "rtx_not_forwarded"
    /// ICE-TCP (RFC 6544): a connection refused because the listener holds its cap of
    /// connections, or of connections not yet authenticated.
    case tcpConnectionLimit = "tcp_connection_limit"
    /// ICE-TCP: no Binding request verified within the deadline after accept.
    case tcpAuthTimeout = "tcp_auth_timeout"
    /// ICE-TCP: the first frame was not a Binding request whose USERNAME and MESSAGE-INTEGRITY
    /// verify, or a verified request named another peer than the one the connection belongs to.
    case tcpUnauthenticated = "tcp_unauthenticated"
    /// ICE-TCP: an RFC 4571 frame longer than any datagram the media port accepts.
    case tcpFrameTooLarge = "tcp_frame_too_large"
    /// ICE-TCP: a frame that is none of STUN, DTLS, RTP or RTCP (RFC 7983), or unparsable STUN.
    case tcpGarbage = "tcp_garbage"
    /// ICE-TCP: a packet not sent because the connection's send buffer is full (a client that
    /// does not read); the connection stays open.
    case tcpBackpressure = "tcp_backpressure"

    /// Counters built once: the drop path runs per packet.
    static let counters: [MediaDropReason: Counter] = Dictionary(uniqueKeysWithValues: allCases.map {
        ($0, Counter(label: "proscenium_media_dropped_total", dimensions: [("reason", $0.rawValue)]))
    })

    public func count() { Self.counters[self]?.increment() }
}
