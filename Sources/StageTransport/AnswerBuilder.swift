import StageWire

/// Writes the SFU's SDP answer (RFC 8829 §5.3, RFC 8843 BUNDLE, RFC 8839 ICE-lite): one
/// transport for all sections, our ICE credentials and fingerprint, the host candidates of
/// every advertised address (UDP and ICE-TCP passive, see `HostCandidates`) then
/// `a=end-of-candidates`, and per section the offered codec, its RTX, and what we send or receive.
/// `c=` and the `m=` port are those of the first address's UDP candidate (RFC 8839 §4.2.1.1).
public struct AnswerBuilder {
    /// A track we send in a section (WHEP, subscriptions).
    public struct OutgoingTrack: Sendable {
        public var ssrc: UInt32
        public var streamID: String
        public var trackID: String
        /// The SSRC of its RTX stream (RFC 4588), announced with `a=ssrc-group:FID` when the
        /// section negotiated RTX.
        public var retransmissionSSRC: UInt32?
        public init(ssrc: UInt32, streamID: String, trackID: String, retransmissionSSRC: UInt32? = nil) {
            self.ssrc = ssrc
            self.streamID = streamID
            self.trackID = trackID
            self.retransmissionSSRC = retransmissionSSRC
        }
    }

    public var offer: RemoteOffer
    public var credentials: ICECredentials
    public var fingerprint: String
    public var candidates: HostCandidates
    public var cname = "proscenium"

    public init(offer: RemoteOffer, credentials: ICECredentials, fingerprint: String, candidates: HostCandidates) {
        self.offer = offer
        self.credentials = credentials
        self.fingerprint = fingerprint
        self.candidates = candidates
    }

    /// - Parameter outgoing: mid → the track we send there; sections without one only receive.
    public func answer(outgoing: [String: OutgoingTrack] = [:], sessionId: UInt64 = .random(in: 1..<(1 << 62))) -> String {
        let connection = candidates.connectionAddress
        let candidateLines = candidates.sdpCandidates.map { SDPLine.attribute($0).description } + ["a=end-of-candidates"]
        var lines = [
            "v=0", "o=- \(sessionId) 2 IN \(connection.addressType) \(connection.address)", "s=-", "t=0 0",
            "a=group:BUNDLE \(offer.sections.map(\.mid).joined(separator: " "))",
            "a=ice-lite", "a=msid-semantic: WMS *",
        ]
        for section in offer.sections {
            lines += media(section, sending: outgoing[section.mid]) + candidateLines
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    private func media(_ section: RemoteOffer.Section, sending track: OutgoingTrack?) -> [String] {
        let codec = section.codec
        var payloadTypes = [codec.payloadType]
        if let rtx = section.retransmissionPayloadType { payloadTypes.append(rtx) }
        let direction: String
        if track != nil, section.direction == .recvonly || section.direction == .sendrecv {
            direction = section.direction == .recvonly ? "sendonly" : "sendrecv"
        } else {
            direction = section.direction == .sendonly || section.direction == .sendrecv ? "recvonly" : "inactive"
        }
        var lines = [
            "m=\(section.kind.rawValue) \(candidates.udpPort) UDP/TLS/RTP/SAVPF \(payloadTypes.map(String.init).joined(separator: " "))",
            "c=IN \(candidates.connectionAddress.addressType) \(candidates.connectionAddress.address)",
            "a=mid:\(section.mid)",
            "a=ice-ufrag:\(credentials.ufrag)", "a=ice-pwd:\(credentials.password)",
            "a=fingerprint:sha-256 \(fingerprint)",
            "a=setup:\(offer.localDTLSRole == .server ? "passive" : "active")",
            "a=\(direction)", "a=rtcp-mux", "a=rtcp-rsize",
        ]
        for (uri, id) in section.extensions.sorted(by: { $0.value < $1.value }) { lines.append("a=extmap:\(id) \(uri)") }
        let map = codec.rtpMap
        lines.append(SDPLine.attribute(map).description)
        if !codec.parameters.isEmpty {
            lines.append(SDPLine.attribute(SDPFormatParameters(payloadType: map.payloadType, parameters: codec.parameters)).description)
        }
        for feedback in section.feedback {
            let ours = SDPRTCPFeedback(payloadType: map.payloadType, type: feedback.type, parameter: feedback.parameter)
            lines.append(SDPLine.attribute(ours).description)
        }
        if let rtx = section.retransmissionPayloadType {
            lines.append("a=rtpmap:\(rtx) rtx/\(map.clockRate)")
            lines.append("a=fmtp:\(rtx) apt=\(map.payloadType)")
        }
        if !section.sendRIDs.isEmpty, direction == "recvonly" {
            for rid in section.sendRIDs { lines.append("a=rid:\(rid) recv") }
            lines.append("a=simulcast:recv \(section.sendRIDs.joined(separator: ";"))")
        }
        if let track, direction != "recvonly" {
            lines.append("a=msid:\(track.streamID) \(track.trackID)")
            lines.append("a=ssrc:\(track.ssrc) cname:\(cname)")
            lines.append("a=ssrc:\(track.ssrc) msid:\(track.streamID) \(track.trackID)")
            if let rtx = track.retransmissionSSRC, section.retransmissionPayloadType != nil {
                lines.append("a=ssrc-group:FID \(track.ssrc) \(rtx)")
                lines.append("a=ssrc:\(rtx) cname:\(cname)")
                lines.append("a=ssrc:\(rtx) msid:\(track.streamID) \(track.trackID)")
            }
        }
        return lines
    }
}
