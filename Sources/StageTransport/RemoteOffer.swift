public import StageWire

/// Why an SDP offer cannot be answered; the message names the line or rule.
public struct NegotiationError: Error, Hashable, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// What an ICE-lite SFU takes from a remote JSEP offer (RFC 8829 §5.3): the DTLS fingerprint
/// and role, and per media section the codec it will use, its SSRCs, rids and header extensions.
public struct RemoteOffer: Sendable {
    public struct Section: Sendable {
        public var mid: String
        public var kind: MediaKind
        public var direction: SDPDirection
        /// The codec chosen from the offer: Opus for audio, VP8 for video.
        public var codec: SDPCodec
        /// RTX payload type for `codec` (RFC 4588), when offered.
        public var retransmissionPayloadType: UInt8?
        public var ssrcs: [UInt32]
        /// RTX SSRC → the media SSRC it repairs (`a=ssrc-group:FID`, RFC 5576 §4.2, RFC 4588 §8.2).
        public var retransmissionSSRCs: [UInt32: UInt32]
        /// Simulcast layers the remote sends (`a=rid … send`, RFC 8851), in `a=simulcast` order.
        public var sendRIDs: [String]
        /// Header extensions we accept: URI → id.
        public var extensions: [String: UInt16]
        public var feedback: [SDPRTCPFeedback]
        public var streamID: String?
        public var trackID: String?
    }

    /// Header extensions this SFU reads (RFC 8843 mid, RFC 8852 rid/repaired-rid); it also
    /// writes abs-send-time on video it sends and transport-cc on all it sends, where offered.
    public static let supportedExtensions = [
        RTPExtensionURI.mid, RTPExtensionURI.rtpStreamID, RTPExtensionURI.repairedRTPStreamID,
    ]
    /// RTCP feedback this SFU honours (RFC 4585 nack and pli, RFC 5104 fir) or sends (REMB; and
    /// transport-cc to a sender that offers its header extension, or reads it from a receiver).
    static let supportedFeedback: Set<String> = ["nack", "nack pli", "ccm fir", "goog-remb"]

    public let description: SessionDescription
    public let fingerprint: [UInt8]
    /// Our DTLS role, from the offer's `a=setup` (RFC 8842 §5.2: actpass or active → we are passive/server).
    public let localDTLSRole: DTLSEndpoint.Role
    public let sections: [Section]

    /// Largest offer accepted, in bytes.
    public static let maximumBytes = 32 * 1024

    public init(sdp: String) throws(NegotiationError) {
        guard sdp.utf8.count <= Self.maximumBytes else {
            throw NegotiationError("offer: \(sdp.utf8.count) bytes; the limit is \(Self.maximumBytes)")
        }
        do {
            description = try SessionDescription(parsing: sdp)
        } catch {
            throw NegotiationError("offer: \(error)")
        }
        guard !description.media.isEmpty else { throw NegotiationError("offer: no m= section") }
        let first = description.media[0]
        guard let print = (description.fingerprints + first.fingerprints).first(where: { $0.hashFunction.lowercased() == "sha-256" }) else {
            throw NegotiationError("offer: a=fingerprint with sha-256 is required (RFC 8122)")
        }
        fingerprint = print.bytes
        switch first.setup ?? description.setup ?? .actpass {
        case .actpass, .active: localDTLSRole = .server
        case .passive: localDTLSRole = .client
        default: throw NegotiationError("offer: a=setup must be actpass, active or passive")
        }
        var sections: [Section] = []
        for (index, media) in description.media.enumerated() {
            sections.append(try Self.section(media, index: index))
        }
        self.sections = sections
    }

    private static func section(_ media: MediaDescription, index: Int) throws(NegotiationError) -> Section {
        let where_ = "m-line \(index + 1) (\(media.media))"
        guard let kind = MediaKind(rawValue: media.media) else {
            throw NegotiationError("offer: \(where_): only audio and video are supported")
        }
        guard let mid = media.mid else { throw NegotiationError("offer: \(where_): a=mid is required (BUNDLE, RFC 8843)") }
        guard media.rtcpMux else { throw NegotiationError("offer: \(where_): a=rtcp-mux is required (RFC 8858)") }
        let wanted = kind == .audio ? "opus" : "vp8"
        guard let codec = media.codecs.first(where: { $0.name.lowercased() == wanted }) else {
            throw NegotiationError("offer: \(where_): no \(kind == .audio ? "Opus" : "VP8") codec offered")
        }
        var extensions: [String: UInt16] = [:]
        for uri in supportedExtensions { extensions[uri] = media.extensionID(for: uri) }
        let direction = media.direction ?? .sendrecv
        // abs-send-time on the video we send, for the receiver's delay-based estimate (its
        // REMB); one-byte IDs only, as the forwarding path writes it (RFC 8285 §4.2).
        if kind == .video, direction == .recvonly || direction == .sendrecv,
           let id = media.extensionID(for: RTPExtensionURI.absSendTime), (1...14).contains(id) {
            extensions[RTPExtensionURI.absSendTime] = id
        }
        // transport-cc on what the remote sends: the server reports when each packet arrived,
        // for the sender's delay-based estimate (draft-holmer-rmcat-transport-wide-cc-extensions-01).
        let sends = direction == .sendonly || direction == .sendrecv
        if sends, let id = media.extensionID(for: RTPExtensionURI.transportWideCC), (1...255).contains(id) {
            extensions[RTPExtensionURI.transportWideCC] = id
        }
        // And on what we send, when the remote offers to report it (`a=rtcp-fb … transport-cc`):
        // our estimate of its downlink reads its feedback. One-byte IDs, as for abs-send-time.
        let reportsArrivals = media.rtcpFeedback(for: codec.payloadType).contains { $0.type == "transport-cc" && $0.parameter == nil }
        if direction == .recvonly || direction == .sendrecv, reportsArrivals,
           let id = media.extensionID(for: RTPExtensionURI.transportWideCC), (1...14).contains(id) {
            extensions[RTPExtensionURI.transportWideCC] = id
        }
        let rids = media.rids.filter { $0.direction == .send }.map(\.id)
        let order = media.simulcast?.sendRIDs ?? rids
        return Section(
            mid: mid, kind: kind, direction: direction, codec: codec,
            retransmissionPayloadType: media.retransmissionPayloadType(for: codec.payloadType),
            ssrcs: Array(Set(media.ssrcAttributes.map(\.ssrc))).sorted(),
            retransmissionSSRCs: Dictionary(media.ssrcGroups.filter { $0.semantics == "FID" && $0.ssrcs.count == 2 }
                .map { ($0.ssrcs[1], $0.ssrcs[0]) }, uniquingKeysWith: { first, _ in first }),
            sendRIDs: order.filter { rids.contains($0) },
            extensions: extensions,
            feedback: media.rtcpFeedback(for: codec.payloadType).filter { feedback in
                supportedFeedback.contains(feedback.parameter.map { "\(feedback.type) \($0)" } ?? feedback.type)
                    || (extensions[RTPExtensionURI.transportWideCC] != nil && feedback.type == "transport-cc"
                        && feedback.parameter == nil)
            },
            streamID: media.msids.first?.streamID, trackID: media.msids.first?.trackID)
    }
}
