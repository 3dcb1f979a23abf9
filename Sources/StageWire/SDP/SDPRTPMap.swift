/// `a=rtpmap:<payload type> <encoding name>/<clock rate>[/<encoding parameters>]`
/// (RFC 8866 §6.6): binds a dynamic payload type to a codec.
public struct SDPRTPMap: SDPAttributeValue {
    public static let attributeName = "rtpmap"

    /// 0–127 (RFC 3550 §5.1: seven bits).
    public var payloadType: UInt8
    /// As written: `opus`, `VP8`, `rtx`, `red`, `ulpfec`, `telephone-event`.
    public var encodingName: String
    public var clockRate: UInt32
    /// Audio channels (`opus/48000/2`); `nil` when absent (one channel).
    public var channels: UInt16?

    public init(payloadType: UInt8, encodingName: String, clockRate: UInt32, channels: UInt16? = nil) {
        self.payloadType = payloadType
        self.encodingName = encodingName
        self.clockRate = clockRate
        self.channels = channels
    }

    public init(sdpValue: Substring) throws(SDPValueError) {
        let fields = sdpValue.sdpFields
        guard fields.count == 2 else {
            throw SDPValueError("rtpmap needs <payload type> <encoding>/<clock rate> (RFC 8866 §6.6)")
        }
        guard let payloadType = sdpDecimal(fields[0], as: UInt8.self), payloadType <= 127 else {
            throw SDPValueError("rtpmap payload type must be 0 to 127 (RFC 8866 §6.6)")
        }
        let parts = fields[1].split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 2, !parts[0].isEmpty else {
            throw SDPValueError("rtpmap needs <encoding>/<clock rate> (RFC 8866 §6.6)")
        }
        guard parts.count <= 3 else {
            throw SDPValueError("rtpmap has at most <encoding>/<clock rate>/<channels> (RFC 8866 §6.6)")
        }
        self.payloadType = payloadType
        encodingName = String(parts[0])
        clockRate = try sdpRequireDecimal(parts[1], as: UInt32.self, "rtpmap clock rate must be a number (RFC 8866 §6.6)")
        channels = parts.count == 3
            ? try sdpRequireDecimal(parts[2], as: UInt16.self, "rtpmap channels must be a number (RFC 8866 §6.6)")
            : nil
    }

    public var sdpValue: String {
        "\(payloadType) \(encodingName)/\(clockRate)" + (channels.map { "/\($0)" } ?? "")
    }
}

/// `a=fmtp:<format> <parameters>` (RFC 8866 §6.15): codec parameters as an ordered list of
/// `name=value` separated by `;` (`minptime=10;useinbandfec=1`, `apt=96` for RTX per RFC 4588 §8.6).
public struct SDPFormatParameters: SDPAttributeValue {
    public static let attributeName = "fmtp"

    /// The format (payload type in RTP media) the parameters belong to.
    public var format: String
    public var parameters: [SDPParameter]

    public init(format: String, parameters: [SDPParameter]) {
        self.format = format
        self.parameters = parameters
    }

    public init(payloadType: UInt8, parameters: [SDPParameter]) {
        self.init(format: String(payloadType), parameters: parameters)
    }

    public init(sdpValue: Substring) throws(SDPValueError) {
        let space = sdpValue.firstIndex(of: " ") ?? sdpValue.endIndex
        guard space > sdpValue.startIndex else {
            throw SDPValueError("fmtp needs <format> <parameters> (RFC 8866 §6.15)")
        }
        format = String(sdpValue[..<space])
        let rest = space < sdpValue.endIndex ? sdpValue[sdpValue.index(after: space)...] : ""
        parameters = rest.split(separator: ";").compactMap { item in
            let trimmed = item.drop { $0 == " " }
            return trimmed.isEmpty ? nil : SDPParameter(parsing: trimmed)
        }
    }

    /// The payload type when the format is a number 0–127.
    public var payloadType: UInt8? { sdpDecimal(format, as: UInt8.self).flatMap { $0 <= 127 ? $0 : nil } }

    /// RFC 4588 §8.6: the payload type an RTX format repairs (`apt=`).
    public var associatedPayloadType: UInt8? { parameters[parameter: "apt"].flatMap { sdpDecimal($0, as: UInt8.self) } }

    /// The value of the first parameter called `name`.
    public subscript(name: String) -> String? { parameters[parameter: name] }

    public var sdpValue: String {
        parameters.isEmpty ? format : "\(format) " + parameters.map(\.description).joined(separator: ";")
    }
}

/// `a=rtcp-fb:<payload type or *> <type> [<parameter>]` (RFC 4585 §4.2): `nack`, `nack pli`,
/// `ccm fir`, `transport-cc`, `goog-remb`.
public struct SDPRTCPFeedback: SDPAttributeValue {
    public static let attributeName = "rtcp-fb"

    /// A payload type, or `*` for every format of the section.
    public var format: String
    public var type: String
    /// The rest after the type (`pli`, `fir`, …), `nil` when absent.
    public var parameter: String?

    public init(format: String, type: String, parameter: String? = nil) {
        self.format = format
        self.type = type
        self.parameter = parameter
    }

    public init(payloadType: UInt8, type: String, parameter: String? = nil) {
        self.init(format: String(payloadType), type: type, parameter: parameter)
    }

    public init(sdpValue: Substring) throws(SDPValueError) {
        let fields = sdpValue.sdpFields
        guard fields.count >= 2 else {
            throw SDPValueError("rtcp-fb needs <payload type or *> <type> [<parameter>] (RFC 4585 §4.2)")
        }
        guard fields[0] == "*" || sdpDecimal(fields[0], as: UInt8.self).map({ $0 <= 127 }) == true else {
            throw SDPValueError("rtcp-fb payload type must be 0 to 127 or * (RFC 4585 §4.2)")
        }
        format = String(fields[0])
        type = String(fields[1])
        parameter = fields.count > 2 ? fields[2...].joined(separator: " ") : nil
    }

    /// The payload type, `nil` for `*`.
    public var payloadType: UInt8? { sdpDecimal(format, as: UInt8.self) }

    /// Whether this applies to `payloadType` (directly or through `*`).
    public func applies(to payloadType: UInt8) -> Bool { format == "*" || self.payloadType == payloadType }

    public var sdpValue: String { "\(format) \(type)" + (parameter.map { " \($0)" } ?? "") }

}

/// `a=extmap:<id>[/<direction>] <uri> [<attributes>]` (RFC 8285 §8): an RTP header extension.
public struct SDPExtensionMap: SDPAttributeValue {
    public static let attributeName = "extmap"

    /// 1–14 for one-byte headers, up to 255 for two-byte (RFC 8285 §4).
    public var id: UInt16
    public var direction: SDPDirection?
    public var uri: String
    /// Extension attributes after the URI, as written.
    public var attributes: String?

    public init(id: UInt16, direction: SDPDirection? = nil, uri: String, attributes: String? = nil) {
        self.id = id
        self.direction = direction
        self.uri = uri
        self.attributes = attributes
    }

    public init(sdpValue: Substring) throws(SDPValueError) {
        let fields = sdpValue.sdpFields
        guard fields.count >= 2 else {
            throw SDPValueError("extmap needs <id>[/<direction>] <uri> (RFC 8285 §8)")
        }
        let idParts = fields[0].split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let id = sdpDecimal(idParts[0], as: UInt16.self), id >= 1 else {
            throw SDPValueError("extmap id must be a number from 1 (RFC 8285 §8)")
        }
        self.id = id
        if idParts.count == 2 {
            guard let direction = SDPDirection(rawValue: String(idParts[1])) else {
                throw SDPValueError("extmap direction must be sendrecv, sendonly, recvonly or inactive (RFC 8285 §8)")
            }
            self.direction = direction
        } else {
            direction = nil
        }
        uri = String(fields[1])
        attributes = fields.count > 2 ? fields[2...].joined(separator: " ") : nil
    }

    public var sdpValue: String {
        var text = String(id)
        if let direction { text += "/\(direction.rawValue)" }
        text += " \(uri)"
        if let attributes { text += " \(attributes)" }
        return text
    }
}
