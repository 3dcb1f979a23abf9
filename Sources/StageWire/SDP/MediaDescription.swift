/// One media section (RFC 8866 §5.14): the `m=` line and the lines after it up to the next
/// `m=`.
///
/// ```
/// m=<media> <port>[/<number of ports>] <proto> <fmt> ...
/// ```
///
/// The `m=` line is held as fields and written back canonically (single spaces); every other line
/// is kept verbatim in ``lines``.
public struct MediaDescription: SDPAttributeContainer, Hashable, Sendable {
    /// `audio`, `video`, `application`, …
    public var media: String
    /// 0 marks a rejected or bundled-only section (RFC 8843 §7.1.3); 9 is JSEP's placeholder.
    public var port: UInt16
    /// The `/<number of ports>` suffix, if written.
    public var numberOfPorts: UInt16?
    /// `UDP/TLS/RTP/SAVPF` for WebRTC media, `UDP/DTLS/SCTP` for data channels.
    public var proto: String
    /// The formats: RTP payload types for RTP media, in preference order.
    public var formats: [String]
    /// The lines after `m=`, verbatim and in order.
    public var lines: [SDPLine]

    public init(
        media: String, port: UInt16 = 9, numberOfPorts: UInt16? = nil, proto: String = "UDP/TLS/RTP/SAVPF",
        formats: [String], lines: [SDPLine] = []
    ) {
        self.media = media
        self.port = port
        self.numberOfPorts = numberOfPorts
        self.proto = proto
        self.formats = formats
        self.lines = lines
    }

    /// Parses the value of an `m=` line (RFC 8866 §5.14).
    public init(mediaLine value: Substring) throws(SDPValueError) {
        let fields = value.sdpFields
        guard fields.count >= 3 else {
            throw SDPValueError("m= needs <media> <port> <proto> <fmt> … (RFC 8866 §5.14)")
        }
        let portParts = fields[1].split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let port = sdpDecimal(portParts[0], as: UInt16.self) else {
            throw SDPValueError("m= port must be a number 0 to 65535, got \"\(fields[1])\" (RFC 8866 §5.14)")
        }
        if portParts.count == 2 {
            numberOfPorts = try sdpRequireDecimal(portParts[1], as: UInt16.self,
                "m= number of ports must be a number, got \"\(fields[1])\" (RFC 8866 §5.14)")
        } else {
            numberOfPorts = nil
        }
        media = String(fields[0])
        self.port = port
        proto = String(fields[2])
        formats = fields.dropFirst(3).map(String.init)
        lines = []
    }

    /// The value of the `m=` line, fields joined by single spaces.
    public var mediaLineValue: String {
        var portText = String(port)
        if let numberOfPorts { portText += "/\(numberOfPorts)" }
        return ([media, portText, proto] + formats).joined(separator: " ")
    }

    /// The `m=` line and then ``lines``, as SDP lines.
    public var allLines: [SDPLine] { [SDPLine(type: "m", value: mediaLineValue)] + lines }

    /// The formats as RTP payload types (non-numeric formats are left out).
    public var payloadTypes: [UInt8] { formats.compactMap { sdpDecimal($0, as: UInt8.self) } }
}
