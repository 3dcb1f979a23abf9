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
    /// A verified Binding request refused: a peer's selected path would move onto a UDP remote
    /// address that is another live peer's selected path (DTLS and SRTP are told apart by it).
    case stunAddressTaken = "stun_address_taken"
    /// A verified Binding request refused: its transaction ID was verified shortly before on
    /// another path (RFC 8489 §5), so it is a replay and must not move the peer's media.
    case stunReplayedTransaction = "stun_replayed_transaction"
    /// A socket without a remote IP address (never for UDP or TCP over IP): refused.
    case noRemoteAddress = "no_remote_address"
    /// ICE-TCP (RFC 6544): a connection refused at accept because the server holds its cap of
    /// connections, or of connections not yet authenticated (`ICETCPLimits`, server-wide).
    case tcpConnectionLimit = "tcp_connection_limit"
    /// ICE-TCP: a connection refused at accept because its source (an IPv4 address, an IPv6 /64)
    /// holds its cap of connections not yet authenticated.
    case tcpSourceLimit = "tcp_source_limit"
    /// ICE-TCP: closed because its peer authenticated one connection more than its cap: the
    /// oldest that is not the selected path goes.
    case tcpPeerLimit = "tcp_peer_limit"
    /// ICE-TCP: closed because it was not its peer's selected path and had carried no verified
    /// check for `ICETCPLimits.unselectedTimeout` (the peer's media moved elsewhere).
    case tcpNotSelected = "tcp_not_selected"
    /// ICE-TCP: closed because the peer connection it belonged to ended (closed, consent lost).
    case tcpPeerClosed = "tcp_peer_closed"
    /// ICE-TCP: no Binding request verified within the deadline after accept.
    case tcpAuthTimeout = "tcp_auth_timeout"
    /// ICE-TCP: closed before it authenticated, because a frame arrived that is not a Binding
    /// request whose USERNAME and MESSAGE-INTEGRITY verify (any other STUN message, a request
    /// that does not verify, DTLS or SRTP).
    case tcpUnauthenticated = "tcp_unauthenticated"
    /// ICE-TCP: a verified Binding request for another peer than the one the (authenticated)
    /// connection belongs to; dropped unanswered, the connection stays.
    case tcpOtherPeer = "tcp_other_peer"
    /// ICE-TCP: an RFC 4571 frame longer than any datagram the media port accepts. Closes the
    /// connection (its frame boundary is lost).
    case tcpFrameTooLarge = "tcp_frame_too_large"
    /// ICE-TCP: closed before it authenticated, because of a frame that is none of STUN, DTLS,
    /// RTP or RTCP (RFC 7983), an empty frame, or STUN that does not parse. After it
    /// authenticated, such a frame is counted (`unknown_kind`, `malformed_stun`) and dropped,
    /// and the connection, maybe the peer's selected path, stays.
    case tcpGarbage = "tcp_garbage"
    /// ICE-TCP: a packet not sent because the connection's send buffer is full (a client that
    /// does not read); the connection stays open.
    case tcpBackpressure = "tcp_backpressure"
    /// ICE-TCP: a packet not sent because it is longer than RFC 4571's 16-bit LENGTH can say.
    case tcpSendTooLarge = "tcp_send_too_large"

    /// Counters built once: the drop path runs per packet.
    static let counters: [MediaDropReason: Counter] = Dictionary(uniqueKeysWithValues: allCases.map {
        ($0, Counter(label: "proscenium_media_dropped_total", dimensions: [("reason", $0.rawValue)]))
    })

    public func count() { Self.counters[self]?.increment() }
}
