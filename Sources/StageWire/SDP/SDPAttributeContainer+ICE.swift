/// Typed views of the transport attributes: ICE (RFC 8839), DTLS (RFC 8122, RFC 4145),
/// BUNDLE (RFC 8843) and media identification (RFC 8830, RFC 8866 §6.7). They apply at the
/// session level or in a media section, wherever the lines are.
extension SDPAttributeContainer {
    /// `a=ice-ufrag` (RFC 8839 §5.4).
    public var iceUfrag: String? { attributeValue("ice-ufrag") }
    /// `a=ice-pwd` (RFC 8839 §5.4): the short-term password STUN checks are keyed with.
    public var icePwd: String? { attributeValue("ice-pwd") }
    /// `a=ice-options` tokens (RFC 8839 §5.6), e.g. `trickle`, `ice2`.
    public var iceOptions: [String] {
        attributeValues("ice-options").flatMap { $0.sdpFields.map(String.init) }
    }
    /// `a=ice-lite` (RFC 8839 §5.3): the agent only answers checks (what this server is).
    public var isICELite: Bool { hasAttribute("ice-lite") }
    /// `a=candidate` lines (RFC 8839 §5.1), in order.
    public var candidates: [SDPCandidate] { values(SDPCandidate.self) }
    /// `a=end-of-candidates` (RFC 8840 §8.2): no more candidates will be trickled.
    public var endOfCandidates: Bool { hasAttribute("end-of-candidates") }

    /// `a=fingerprint` lines (RFC 8122 §5).
    public var fingerprints: [SDPFingerprint] { values(SDPFingerprint.self) }
    /// `a=setup` (RFC 4145 §4).
    public var setup: SDPSetupRole? { value(SDPSetupRole.self) }

    /// `a=group` lines (RFC 5888 §5).
    public var groups: [SDPGroup] { values(SDPGroup.self) }
    /// The mids of the first `a=group:BUNDLE` (RFC 8843 §7), `nil` without one.
    public var bundleMIDs: [String]? { groups.first { $0.semantics == "BUNDLE" }?.mids }

    /// `a=mid` (RFC 5888 §4).
    public var mid: String? { attributeValue("mid") }
    /// `a=msid` lines (RFC 8830 §2).
    public var msids: [SDPMediaStreamID] { values(SDPMediaStreamID.self) }

    /// The direction attribute (RFC 8866 §6.7); `nil` when none is written (sendrecv is implied).
    /// Setting removes every direction line and appends the new one.
    public var direction: SDPDirection? {
        get {
            for line in lines {
                if let name = line.attributeName, let direction = SDPDirection(rawValue: String(name)),
                   line.attributeValue == nil {
                    return direction
                }
            }
            return nil
        }
        set {
            lines.removeAll { line in
                line.attributeValue == nil && line.attributeName.map { SDPDirection(rawValue: String($0)) != nil } == true
            }
            if let newValue { appendAttribute(newValue.rawValue) }
        }
    }

    /// `a=rtcp-mux` (RFC 5761 §5.1.1): RTP and RTCP share the port.
    public var rtcpMux: Bool { hasAttribute("rtcp-mux") }
    /// `a=rtcp-rsize` (RFC 5506 §5): reduced-size RTCP is allowed.
    public var rtcpReducedSize: Bool { hasAttribute("rtcp-rsize") }
}
