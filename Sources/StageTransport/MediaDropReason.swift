import Metrics

/// Why the media port dropped a datagram; each is counted in `proscenium_media_dropped_total{reason}`.
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

    /// Counters built once: the drop path runs per packet.
    static let counters: [MediaDropReason: Counter] = Dictionary(uniqueKeysWithValues: allCases.map {
        ($0, Counter(label: "proscenium_media_dropped_total", dimensions: [("reason", $0.rawValue)]))
    })

    public func count() { Self.counters[self]?.increment() }
}
