/// One WebRTC statistics object (W3C webrtc-stats): `type` is `inbound-rtp`, `outbound-rtp`,
/// `candidate-pair`, `local-candidate` or `remote-candidate`; `values` holds its members by their W3C names (`packetsLost`, `jitter`,
/// `framesDecoded`, `bytesReceived`, `currentRoundTripTime`, …) as numbers or strings.
public struct RTCStats: Sendable, Hashable {
    public enum Value: Sendable, Hashable, CustomStringConvertible {
        case number(Double)
        case string(String)
        public var description: String {
            switch self {
            case .number(let value): value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
            case .string(let value): value
            }
        }
        public var number: Double? { if case .number(let value) = self { value } else { nil } }
    }

    public var id: String
    public var type: String
    public var values: [String: Value]

    public init(id: String, type: String, values: [String: Value]) {
        self.id = id
        self.type = type
        self.values = values
    }

    public subscript(_ name: String) -> Value? { values[name] }
}

/// Receives a stream's statistics (IVS `IVSStageStreamDelegate`), on the main actor.
@MainActor
public protocol StageStreamDelegate: AnyObject {
    func stageStream(_ stream: StageStream, didGenerateRTCStats stats: [RTCStats])
}
