import Metrics

/// Why the media port dropped a datagram, the SFU a packet or a request, the server closed an
/// ICE-TCP connection (the `tcp_` reasons), or a pipe between routers refused a datagram (the
/// `pipe_` reasons); each is counted in `proscenium_media_dropped_total{reason}`.
public enum MediaDropReason: String, CaseIterable, Sendable {
    /// A datagram or ICE-TCP frame that is none of STUN, DTLS, RTP or RTCP (RFC 7983), or empty.
    case unknownKind = "unknown_kind"
    /// STUN that does not parse (a header or attribute cut short or out of shape).
    case malformedSTUN = "malformed_stun"
    /// A STUN message other than a Binding request (an indication, a response).
    case stunNotRequest = "stun_not_binding_request"
    /// A Binding request whose USERNAME names no peer here (answered 401).
    case stunUnknownUsername = "stun_unknown_username"
    /// A Binding request whose MESSAGE-INTEGRITY does not verify with the peer's password.
    case stunBadIntegrity = "stun_bad_integrity"
    /// STUN whose FINGERPRINT (RFC 8489 §14.7) does not match its bytes: corrupted or forged.
    case stunBadFingerprint = "stun_bad_fingerprint"
    /// DTLS, RTP or RTCP from a remote address that is no peer's selected path.
    case unknownAddress = "unknown_address"
    /// A DTLS handshake that failed (bad certificate fingerprint, protocol error), or SRTP keys
    /// that could not be set up after it; the peer is closed.
    case dtlsFailed = "dtls_failed"
    /// SRTP or SRTCP from a peer whose DTLS handshake has not finished.
    case notConnected = "srtp_not_ready"
    /// SRTP or SRTCP whose authentication tag does not verify.
    case srtpAuthentication = "srtp_auth_failed"
    /// SRTP or SRTCP already received, or too old for the replay window (1024 packets).
    case srtpReplay = "srtp_replay"
    /// SRTP or SRTCP libsrtp refused for another reason (a packet too short for its header).
    case srtpOther = "srtp_error"
    /// Decrypted RTP whose header does not parse (CSRCs, extension or padding past its end).
    case malformedRTP = "malformed_rtp"
    /// A decrypted RTCP packet that does not parse (a compound's walk stops at a broken length).
    case malformedRTCP = "malformed_rtcp"
    /// RTP from a publisher on an SSRC and payload type its offer did not announce, RTP from a
    /// subscriber (which sends none), or RTCP feedback for an SSRC the subscriber does not receive.
    case unknownSSRC = "unknown_ssrc"
    /// Simulcast RTP whose rid header extension names no layer of the offer.
    case unknownRID = "unknown_rid"
    /// RTX (RFC 4588) from a publisher that restores nothing: padding only (a bandwidth probe),
    /// or an RTX stream whose media stream is unknown (no FID group, no repaired-rid naming a layer).
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
    /// A packet of a track its publisher muted (counted once, not per subscriber).
    case muted = "muted"
    /// A packet not sent to one subscriber because its consumer is paused (its transport has
    /// not connected yet).
    case consumerPaused = "consumer_paused"
    /// A packet of a simulcast layer one subscriber does not receive now. Expected: each
    /// subscriber of a simulcast track drops the layers it does not get.
    case layerNotSelected = "layer_not_selected"
    /// A lost packet a subscriber asked for (NACK) that the cache no longer holds, or of a
    /// track with no cache (audio): not retransmitted.
    case nackNotCached = "nack_not_cached"
    /// A video packet already received (an RTX padding probe repeats sent packets; a network
    /// duplicate): not forwarded again. Also, per subscriber, a late packet that fills no gap
    /// in what it was sent (of a frame it skipped, or one it got already).
    case duplicate = "duplicate"
    /// A keyframe request not passed to the publisher: one went less than 300 ms before.
    case keyframeRequestThrottled = "keyframe_request_throttled"
    /// A packet for a peer that cannot take it: not connected yet, without a selected path, or
    /// closed, or whose ICE-TCP connection is closing.
    case sendNotReady = "send_not_ready"
    /// A packet SRTP or SRTCP protection refused (libsrtp: a header it cannot read, a key
    /// used up); not sent.
    case srtpProtectFailed = "srtp_protect_failed"
    /// A datagram the kernel refused to send (`sendmmsg`: its destination unreachable, too
    /// long), or an error a UDP socket of the media port reported to NIO. (A STUN or DTLS
    /// datagram NIO sends that fails with EMSGSIZE or EHOSTUNREACH is not seen: NIO fails only
    /// its write promise, and the engine passes none.)
    case udpSendFailed = "udp_send_failed"
    /// A video packet for a subscriber whose pacer already holds as much as it may (1 MB):
    /// the media loop stalled, or the subscriber is sent far more than its link's estimate.
    case pacerQueueFull = "pacer_queue_full"
    /// An answer to a NACK not sent: its subscriber's pacer was a burst in debt already (the
    /// link is being sent what its estimate allows). The subscriber asks again or asks for a keyframe.
    case repairOverBudget = "repair_over_budget"
    /// Pipe (`PipeTransport`): a datagram whose source is not exactly the connected remote
    /// address, or any datagram before `connect`. Refused before SRTP is looked at.
    case pipeUnknownSource = "pipe_unknown_source"
    /// Pipe: SRTP or SRTCP whose authentication tag does not verify with the receive key
    /// (RFC 3711 §3.3, §3.4: other keys, a changed byte).
    case pipeAuthentication = "pipe_srtp_auth_failed"
    /// Pipe: SRTP or SRTCP already received, or too old for the replay window (RFC 3711 §3.3.2).
    case pipeReplay = "pipe_srtp_replay"
    /// Pipe: a datagram that is not RTP or RTCP (RFC 5761 §4), too short for its header, that
    /// libsrtp cannot read, or whose decrypted RTP header does not parse (RFC 3550 §5.1); or a
    /// packet handed to `sendRTP` or `sendRTCP` that is not of its kind, or longer than
    /// `MediaEngine.maximumPacketLength` (not sent).
    case pipeMalformed = "pipe_malformed"

    /// Counters built once: the drop path runs per packet.
    static let counters: [MediaDropReason: Counter] = Dictionary(uniqueKeysWithValues: allCases.map {
        ($0, Counter(label: "proscenium_media_dropped_total", dimensions: [("reason", $0.rawValue)]))
    })

    public func count() { Self.counters[self]?.increment() }
}
