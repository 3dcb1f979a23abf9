/// Reading SDP text (RFC 8866 §5) with the limits a server applies to untrusted offers.
extension SessionDescription {
    /// Parses a session description.
    ///
    /// Lines end in CRLF or LF (RFC 8866 §5 asks parsers to accept both); blank lines at the end
    /// are ignored. Checks, in order: size (``maximumBytes``), line count (``maximumLines``), each
    /// line's length (``maximumLineBytes``) and form (`<letter>=<value>`, UTF-8, no NUL or CR),
    /// `v=0` first, and the grammar of `o=`, `c=`, `t=`, `m=` and of the attributes WebRTC uses
    /// (candidate, fingerprint, setup, group, msid, rtpmap, fmtp, rtcp-fb, extmap, ssrc,
    /// ssrc-group, rid, simulcast). Other lines are kept without interpretation.
    /// - Throws: ``SDPError`` with the 1-based line number and the rule broken.
    public init(parsing text: String) throws(SDPError) {
        try self.init(parsingUTF8: Array(text.utf8))
    }

    /// Parses a session description from UTF-8 bytes; see ``init(parsing:)``.
    public init(parsingUTF8 bytes: [UInt8]) throws(SDPError) {
        if bytes.count > Self.maximumBytes {
            let line = bytes[..<Self.maximumBytes].reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            throw .tooLarge(line: line, bytes: bytes.count, limit: Self.maximumBytes)
        }
        var rawLines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        while let last = rawLines.last, last.isEmpty || last == [UInt8(ascii: "\r")] { rawLines.removeLast() }
        guard !rawLines.isEmpty else { throw .empty }
        if rawLines.count > Self.maximumLines {
            throw .tooManyLines(line: Self.maximumLines + 1, limit: Self.maximumLines)
        }

        var session: [SDPLine] = []
        var media: [MediaDescription] = []
        for (index, raw) in rawLines.enumerated() {
            let number = index + 1
            let line = try Self.readLine(raw, number: number)
            if number == 1 {
                guard line.type == "v" else { throw .missingVersion(line: number) }
            }
            switch line.type {
            case "v":
                guard line.value == "0" else {
                    throw .invalidLine(line: number, type: "v", rule: "version must be 0 (RFC 8866 §5.1)")
                }
            case "o":
                try Self.check(number, "o") { () throws(SDPValueError) in _ = try SDPOrigin(sdpValue: line.value[...]) }
            case "c":
                try Self.check(number, "c") { () throws(SDPValueError) in _ = try SDPConnection(sdpValue: line.value[...]) }
            case "t":
                try Self.check(number, "t") { () throws(SDPValueError) in _ = try SDPTiming(sdpValue: line.value[...]) }
            case "m":
                do {
                    media.append(try MediaDescription(mediaLine: line.value[...]))
                } catch {
                    throw .invalidLine(line: number, type: "m", rule: error.rule)
                }
                continue
            case "a":
                try Self.checkAttribute(line, number: number)
            default:
                break
            }
            if media.isEmpty {
                session.append(line)
            } else {
                media[media.count - 1].lines.append(line)
            }
        }
        self.init(lines: session, media: media)
    }

    /// Splits one raw line (LF removed) into type and value, enforcing RFC 8866 §5's form.
    static func readLine(_ raw: ArraySlice<UInt8>, number: Int) throws(SDPError) -> SDPLine {
        var raw = raw
        if raw.last == UInt8(ascii: "\r") { raw = raw.dropLast() }
        guard raw.count <= maximumLineBytes else {
            throw .lineTooLong(line: number, length: raw.count, limit: maximumLineBytes)
        }
        guard raw.count >= 2, let type = raw.first, raw[raw.startIndex + 1] == UInt8(ascii: "=") else {
            throw .malformedLine(line: number, reason: raw.isEmpty ? "blank line" : "no '=' after the type letter")
        }
        guard (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(type) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(type) else {
            throw .malformedLine(line: number, reason: "type must be one letter")
        }
        let valueBytes = raw.dropFirst(2)
        guard !valueBytes.contains(0), !valueBytes.contains(UInt8(ascii: "\r")) else {
            throw .malformedLine(line: number, reason: "value contains NUL or CR")
        }
        guard let value = String(validating: valueBytes, as: UTF8.self) else {
            throw .malformedLine(line: number, reason: "value is not UTF-8")
        }
        return SDPLine(type: Character(Unicode.Scalar(type)), value: value)
    }

    static func check(_ number: Int, _ type: Character, _ body: () throws(SDPValueError) -> Void) throws(SDPError) {
        do {
            try body()
        } catch {
            throw .invalidLine(line: number, type: type, rule: error.rule)
        }
    }

    /// Validates the attributes WebRTC relies on; unknown attributes pass untouched.
    static func checkAttribute(_ line: SDPLine, number: Int) throws(SDPError) {
        guard let name = line.attributeName else { return }
        let value = line.attributeValue ?? ""
        do {
            switch name {
            case SDPCandidate.attributeName: _ = try SDPCandidate(sdpValue: value)
            case SDPFingerprint.attributeName: _ = try SDPFingerprint(sdpValue: value)
            case SDPSetupRole.attributeName: _ = try SDPSetupRole(sdpValue: value)
            case SDPGroup.attributeName: _ = try SDPGroup(sdpValue: value)
            case SDPMediaStreamID.attributeName: _ = try SDPMediaStreamID(sdpValue: value)
            case SDPRTPMap.attributeName: _ = try SDPRTPMap(sdpValue: value)
            case SDPFormatParameters.attributeName: _ = try SDPFormatParameters(sdpValue: value)
            case SDPRTCPFeedback.attributeName: _ = try SDPRTCPFeedback(sdpValue: value)
            case SDPExtensionMap.attributeName: _ = try SDPExtensionMap(sdpValue: value)
            case SDPSSRCAttribute.attributeName: _ = try SDPSSRCAttribute(sdpValue: value)
            case SDPSSRCGroup.attributeName: _ = try SDPSSRCGroup(sdpValue: value)
            case SDPRID.attributeName: _ = try SDPRID(sdpValue: value)
            case SDPSimulcast.attributeName: _ = try SDPSimulcast(sdpValue: value)
            default: break
            }
        } catch {
            throw .invalidAttribute(line: number, name: String(name), rule: error.rule)
        }
    }
}
