public import StageWire

/// One ICE candidate (RFC 8445 §5.1), ours or the remote's: a transport address, its type and
/// priority, and for TCP its direction (RFC 6544).
public struct ICECandidate: Sendable, Hashable, CustomStringConvertible {
    public var foundation: String
    public var type: ICECandidateType
    public var transport: ICETransportProtocol
    /// `active`/`passive`/`so` for TCP candidates, nil for UDP.
    public var tcpType: ICETCPType?
    public var address: STUNAddress
    public var priority: UInt32
    /// The base (srflx) or the mapped address (relay), as `raddr`/`rport` carry it.
    public var relatedAddress: STUNAddress?
    /// For a relayed candidate, how we reach the TURN server (W3C `relayProtocol`).
    public var relayProtocol: ICETransportProtocol?

    public init(foundation: String, type: ICECandidateType, transport: ICETransportProtocol, tcpType: ICETCPType? = nil,
                address: STUNAddress, priority: UInt32, relatedAddress: STUNAddress? = nil, relayProtocol: ICETransportProtocol? = nil) {
        self.foundation = foundation
        self.type = type
        self.transport = transport
        self.tcpType = tcpType
        self.address = address
        self.priority = priority
        self.relatedAddress = relatedAddress
        self.relayProtocol = relayProtocol
    }

    /// A remote candidate from SDP (RFC 8839 §5.1); nil for what this agent cannot use: other
    /// components than RTP (rtcp-mux is required), transports other than UDP and TCP, host
    /// names (mDNS `.local` candidates), unknown types.
    public init?(_ sdp: SDPCandidate) {
        guard sdp.component == 1, let transport = ICETransportProtocol(rawValue: sdp.transport.lowercased()),
              let ip = IPAddress(sdp.address), let type = ICECandidateType(rawValue: sdp.type) else { return nil }
        var tcpType: ICETCPType?
        if transport == .tcp {
            guard let text = sdp.extensionValue("tcptype"), let value = ICETCPType(rawValue: text) else { return nil }
            tcpType = value
        }
        var related: STUNAddress?
        if let raddr = sdp.relatedAddress.flatMap({ IPAddress($0) }) { related = STUNAddress(ip: raddr, port: sdp.relatedPort ?? 0) }
        self.init(foundation: sdp.foundation, type: type, transport: transport, tcpType: tcpType,
                  address: STUNAddress(ip: ip, port: sdp.port), priority: sdp.priority, relatedAddress: related)
    }

    /// The `a=candidate` value (RFC 8839 §5.1; active TCP candidates use port 9, RFC 6544 §4.5).
    public var sdp: SDPCandidate {
        var extensions: [SDPParameter] = []
        if let tcpType { extensions.append(SDPParameter(name: "tcptype", value: tcpType.rawValue)) }
        let port = tcpType == .active ? 9 : address.port
        return SDPCandidate(foundation: foundation, transport: transport.rawValue, priority: priority, address: address.ip.description,
                            port: port, type: type.rawValue, relatedAddress: relatedAddress?.ip.description,
                            relatedPort: relatedAddress?.port, extensions: extensions)
    }

    public var isLoopback: Bool { address.ip.isLoopback }

    /// `host udp 192.0.2.1:5000`, `relay udp 198.51.100.2:49152 (via tcp)`.
    public var description: String {
        var text = "\(type.rawValue) \(transport.rawValue) \(address)"
        if let relayProtocol { text += " (via \(relayProtocol.rawValue))" }
        return text
    }
}
