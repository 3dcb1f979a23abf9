/// Any RTCP packet: the types StageWire decodes, and `raw` for the rest (RFC 3550 §6.1: unknown
/// types are skipped, not errors). An enum, so dispatch is a switch, never an existential.
public enum RTCPPacket: Hashable, Sendable {
    case senderReport(RTCPSenderReport)
    case receiverReport(RTCPReceiverReport)
    case sourceDescription(RTCPSourceDescription)
    case goodbye(RTCPGoodbye)
    case genericNACK(RTCPGenericNACK)
    case transportCCFeedback(RTCPTransportCCFeedback)
    case pictureLossIndication(RTCPPictureLossIndication)
    case fullIntraRequest(RTCPFullIntraRequest)
    case receiverEstimatedMaxBitrate(RTCPReceiverEstimatedMaxBitrate)
    /// APP, XR, feedback formats not listed above, application-layer feedback other than REMB,
    /// unknown packet types.
    case raw(RTCPRawPacket)

    /// Decodes the framed packet `frame` of `buffer` by its PT and, for feedback, its FMT.
    public init(frame: RTCPPacketFrame, in buffer: UnsafeRawBufferPointer) throws(RTCPError) {
        let header = frame.header
        let body = UnsafeRawBufferPointer(rebasing: buffer[frame.bodyRange])
        switch (header.packetType, header.count) {
        case (.senderReport, _):
            self = .senderReport(try RTCPSenderReport(header: header, body: body))
        case (.receiverReport, _):
            self = .receiverReport(try RTCPReceiverReport(header: header, body: body))
        case (.sourceDescription, _):
            self = .sourceDescription(try RTCPSourceDescription(header: header, body: body))
        case (.goodbye, _):
            self = .goodbye(try RTCPGoodbye(header: header, body: body))
        case (.transportFeedback, RTCPFeedbackFormat.genericNACK):
            self = .genericNACK(try RTCPGenericNACK(header: header, body: body))
        case (.transportFeedback, RTCPFeedbackFormat.transportCC):
            self = .transportCCFeedback(try RTCPTransportCCFeedback(header: header, body: body))
        case (.payloadFeedback, RTCPFeedbackFormat.pictureLossIndication):
            self = .pictureLossIndication(try RTCPPictureLossIndication(header: header, body: body))
        case (.payloadFeedback, RTCPFeedbackFormat.fullIntraRequest):
            self = .fullIntraRequest(try RTCPFullIntraRequest(header: header, body: body))
        case (.payloadFeedback, RTCPFeedbackFormat.applicationLayer) where RTCPReceiverEstimatedMaxBitrate.isREMB(body: body):
            self = .receiverEstimatedMaxBitrate(try RTCPReceiverEstimatedMaxBitrate(header: header, body: body))
        default:
            self = .raw(RTCPRawPacket(header: header, body: body))
        }
    }

    /// Parses exactly one packet filling `packet`.
    /// - Throws: framing errors, `RTCPError.trailingBytes` if bytes follow it, or its type's errors.
    public init(parsing packet: UnsafeRawBufferPointer) throws(RTCPError) {
        try self.init(frame: try RTCPPacketFrame.single(packet), in: packet)
    }

    /// Parses exactly one packet held in an array.
    public init(parsing packet: [UInt8]) throws(RTCPError) {
        self = try packet.withUnsafeBytes { bytes in Result { () throws(RTCPError) in try RTCPPacket(parsing: bytes) } }.get()
    }

    /// The packet type on the wire.
    public var packetType: RTCPPacketType {
        switch self {
        case .senderReport: .senderReport
        case .receiverReport: .receiverReport
        case .sourceDescription: .sourceDescription
        case .goodbye: .goodbye
        case .genericNACK, .transportCCFeedback: .transportFeedback
        case .pictureLossIndication, .fullIntraRequest, .receiverEstimatedMaxBitrate: .payloadFeedback
        case let .raw(packet): packet.packetType
        }
    }

    /// Bytes `serialize(into:)` appends.
    public var marshalSize: Int {
        switch self {
        case let .senderReport(packet): packet.marshalSize
        case let .receiverReport(packet): packet.marshalSize
        case let .sourceDescription(packet): packet.marshalSize
        case let .goodbye(packet): packet.marshalSize
        case let .genericNACK(packet): packet.marshalSize
        case let .transportCCFeedback(packet): packet.marshalSize
        case let .pictureLossIndication(packet): packet.marshalSize
        case let .fullIntraRequest(packet): packet.marshalSize
        case let .receiverEstimatedMaxBitrate(packet): packet.marshalSize
        case let .raw(packet): packet.marshalSize
        }
    }

    /// Appends the packet (header, body, padding to 32 bits).
    public func serialize(into out: inout [UInt8]) throws(RTCPError) {
        switch self {
        case let .senderReport(packet): try packet.serialize(into: &out)
        case let .receiverReport(packet): try packet.serialize(into: &out)
        case let .sourceDescription(packet): try packet.serialize(into: &out)
        case let .goodbye(packet): try packet.serialize(into: &out)
        case let .genericNACK(packet): try packet.serialize(into: &out)
        case let .transportCCFeedback(packet): try packet.serialize(into: &out)
        case let .pictureLossIndication(packet): try packet.serialize(into: &out)
        case let .fullIntraRequest(packet): try packet.serialize(into: &out)
        case let .receiverEstimatedMaxBitrate(packet): try packet.serialize(into: &out)
        case let .raw(packet): try packet.serialize(into: &out)
        }
    }

    /// The packet as a new array.
    public func serialized() throws(RTCPError) -> [UInt8] {
        var out: [UInt8] = []
        try serialize(into: &out)
        return out
    }
}
