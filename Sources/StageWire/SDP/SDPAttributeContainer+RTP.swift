/// Typed views of the RTP attributes: codecs (RFC 8866 §6.6, §6.15), feedback (RFC 4585),
/// header extensions (RFC 8285), sources (RFC 5576) and simulcast (RFC 8851, RFC 8853).
extension SDPAttributeContainer {
    /// `a=rtpmap` lines, in order.
    public var rtpMaps: [SDPRTPMap] { values(SDPRTPMap.self) }
    /// `a=fmtp` lines, in order.
    public var formatParameters: [SDPFormatParameters] { values(SDPFormatParameters.self) }
    /// `a=rtcp-fb` lines, in order.
    public var rtcpFeedback: [SDPRTCPFeedback] { values(SDPRTCPFeedback.self) }
    /// `a=extmap` lines, in order.
    public var extensionMaps: [SDPExtensionMap] { values(SDPExtensionMap.self) }
    /// `a=ssrc` lines, in order.
    public var ssrcAttributes: [SDPSSRCAttribute] { values(SDPSSRCAttribute.self) }
    /// `a=ssrc-group` lines, in order.
    public var ssrcGroups: [SDPSSRCGroup] { values(SDPSSRCGroup.self) }
    /// `a=rid` lines, in order.
    public var rids: [SDPRID] { values(SDPRID.self) }
    /// `a=simulcast` (RFC 8853 §5.1).
    public var simulcast: SDPSimulcast? { value(SDPSimulcast.self) }

    /// The rtpmap of a payload type.
    public func rtpMap(for payloadType: UInt8) -> SDPRTPMap? {
        rtpMaps.first { $0.payloadType == payloadType }
    }

    /// The fmtp parameters of a payload type (empty when it has none).
    public func formatParameters(for payloadType: UInt8) -> [SDPParameter] {
        formatParameters.first { $0.payloadType == payloadType }?.parameters ?? []
    }

    /// The rtcp-fb lines that apply to a payload type, `*` included.
    public func rtcpFeedback(for payloadType: UInt8) -> [SDPRTCPFeedback] {
        rtcpFeedback.filter { $0.applies(to: payloadType) }
    }

    /// RFC 4588 §8.6: the RTX payload type whose `apt=` names `payloadType`.
    public func retransmissionPayloadType(for payloadType: UInt8) -> UInt8? {
        formatParameters.first { $0.associatedPayloadType == payloadType }?.payloadType
    }

    /// The header extension id negotiated for `uri`.
    public func extensionID(for uri: String) -> UInt16? {
        extensionMaps.first { $0.uri == uri }?.id
    }
}

/// A codec of a media section: its rtpmap with its fmtp parameters and feedback gathered.
public struct SDPCodec: Hashable, Sendable {
    public var rtpMap: SDPRTPMap
    public var parameters: [SDPParameter]
    public var feedback: [SDPRTCPFeedback]

    public var payloadType: UInt8 { rtpMap.payloadType }
    public var name: String { rtpMap.encodingName }
}

extension MediaDescription {
    /// The section's codecs in `m=` format order (formats without an rtpmap are left out).
    public var codecs: [SDPCodec] {
        let maps = rtpMaps, parameters = formatParameters, feedback = rtcpFeedback
        return payloadTypes.compactMap { payloadType in
            guard let map = maps.first(where: { $0.payloadType == payloadType }) else { return nil }
            return SDPCodec(
                rtpMap: map,
                parameters: parameters.first { $0.payloadType == payloadType }?.parameters ?? [],
                feedback: feedback.filter { $0.applies(to: payloadType) })
        }
    }
}
