import Testing
@testable import StageWire

/// One malformed description and the error parsing must report.
struct SDPMalformedCase: Sendable, CustomTestStringConvertible {
    let name: String
    let text: String
    let error: SDPError
    var testDescription: String { name }
}

/// Runs `body` and returns the SDPError it throws, or nil.
func sdpError<T>(_ body: () throws(SDPError) -> T) -> SDPError? { thrownError(SDPError.self, body) }

/// Malformed SDP, each case named after the rule it breaks; errors carry the line number.
@Suite struct SDPMalformedTests {
    static let head = "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n"  // lines 1–4

    static let cases: [SDPMalformedCase] = [
        SDPMalformedCase(name: "RFC 8866 §5 empty", text: "", error: .empty),
        SDPMalformedCase(name: "RFC 8866 §5 only line endings", text: "\r\n\n", error: .empty),
        SDPMalformedCase(
            name: "RFC 8866 §5.1 no v= line", text: "o=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n",
            error: .missingVersion(line: 1)),
        SDPMalformedCase(
            name: "RFC 8866 §5.1 version other than 0", text: "v=1\r\n",
            error: .invalidLine(line: 1, type: "v", rule: "version must be 0 (RFC 8866 §5.1)")),
        SDPMalformedCase(
            name: "RFC 8866 §5 garbage line", text: head + "hello world\r\n",
            error: .malformedLine(line: 5, reason: "no '=' after the type letter")),
        SDPMalformedCase(
            name: "RFC 8866 §5 type not a letter", text: head + "1=x\r\n",
            error: .malformedLine(line: 5, reason: "type must be one letter")),
        SDPMalformedCase(
            name: "RFC 8866 §5 blank line inside", text: head + "\r\na=x\r\n",
            error: .malformedLine(line: 5, reason: "blank line")),
        SDPMalformedCase(
            name: "RFC 8866 §5 NUL in value", text: head + "a=x\u{0}y\r\n",
            error: .malformedLine(line: 5, reason: "value contains NUL or CR")),
        SDPMalformedCase(
            name: "RFC 8866 §5.2 origin with too few fields", text: "v=0\r\no=- 1 1 IN IP4\r\n",
            error: .invalidLine(line: 2, type: "o",
                rule: "o= needs 6 fields: username sess-id sess-version nettype addrtype address (RFC 8866 §5.2)")),
        SDPMalformedCase(
            name: "RFC 8866 §5.14 m-line with bad port", text: head + "m=audio nine UDP/TLS/RTP/SAVPF 111\r\n",
            error: .invalidLine(line: 5, type: "m",
                rule: "m= port must be a number 0 to 65535, got \"nine\" (RFC 8866 §5.14)")),
        SDPMalformedCase(
            name: "RFC 8866 §5.14 m-line port over 65535", text: head + "m=audio 70000 UDP/TLS/RTP/SAVPF 111\r\n",
            error: .invalidLine(line: 5, type: "m",
                rule: "m= port must be a number 0 to 65535, got \"70000\" (RFC 8866 §5.14)")),
        SDPMalformedCase(
            name: "RFC 8866 §6.6 rtpmap without clock rate",
            text: head + "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=rtpmap:111 opus\r\n",
            error: .invalidAttribute(line: 6, name: "rtpmap", rule: "rtpmap needs <encoding>/<clock rate> (RFC 8866 §6.6)")),
        SDPMalformedCase(
            name: "RFC 8866 §6.6 rtpmap with empty clock rate",
            text: head + "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=rtpmap:111 opus/\r\n",
            error: .invalidAttribute(line: 6, name: "rtpmap", rule: "rtpmap clock rate must be a number (RFC 8866 §6.6)")),
        SDPMalformedCase(
            name: "RFC 8839 §5.1 candidate with too few fields",
            text: head + "a=candidate:1 1 udp 2122260223 192.168.1.10 54321 typ\r\n",
            error: .invalidAttribute(line: 5, name: "candidate",
                rule: "candidate needs foundation component transport priority address port typ type (RFC 8839 §5.1)")),
        SDPMalformedCase(
            name: "RFC 8839 §5.1 candidate extension without value",
            text: head + "a=candidate:1 1 udp 1 10.0.0.1 9 typ host generation\r\n",
            error: .invalidAttribute(line: 5, name: "candidate",
                rule: "candidate extension \"generation\" has no value (RFC 8839 §5.1)")),
        SDPMalformedCase(
            name: "RFC 8853 §5.1 simulcast with empty list", text: head + "a=simulcast:send\r\n",
            error: .invalidAttribute(line: 5, name: "simulcast",
                rule: "simulcast needs send|recv and a non-empty rid list, once or once each (RFC 8853 §5.1)")),
        SDPMalformedCase(
            name: "RFC 8853 §5.1 simulcast with empty stream", text: head + "a=simulcast:send q;;f\r\n",
            error: .invalidAttribute(line: 5, name: "simulcast",
                rule: "simulcast rid list has an empty or invalid rid-id (RFC 8853 §5.1)")),
        SDPMalformedCase(
            name: "RFC 8122 §5 fingerprint not hex", text: head + "a=fingerprint:sha-256 ZZ:00\r\n",
            error: .invalidAttribute(line: 5, name: "fingerprint",
                rule: "fingerprint must be pairs of hex digits joined by ':' (RFC 8122 §5)")),
        SDPMalformedCase(
            name: "RFC 4145 §4 unknown setup role", text: head + "a=setup:both\r\n",
            error: .invalidAttribute(line: 5, name: "setup",
                rule: "setup must be actpass, active, passive or holdconn (RFC 4145 §4)")),
        SDPMalformedCase(
            name: "RFC 8851 §10 rid with bad direction", text: head + "a=rid:q sendrecv\r\n",
            error: .invalidAttribute(line: 5, name: "rid", rule: "rid direction must be send or recv (RFC 8851 §10)")),
        SDPMalformedCase(
            name: "RFC 8285 §8 extmap id zero", text: head + "a=extmap:0 urn:x\r\n",
            error: .invalidAttribute(line: 5, name: "extmap", rule: "extmap id must be a number from 1 (RFC 8285 §8)")),
        SDPMalformedCase(
            name: "RFC 5576 §4.1 ssrc without attribute", text: head + "a=ssrc:1234\r\n",
            error: .invalidAttribute(line: 5, name: "ssrc", rule: "ssrc needs <ssrc-id> <attribute>[:<value>] (RFC 5576 §4.1)")),
    ]

    @Test(arguments: cases)
    func rfc8866MalformedDescriptionIsRejected(_ testCase: SDPMalformedCase) {
        let error = sdpError { () throws(SDPError) in try SessionDescription(parsing: testCase.text) }
        #expect(error == testCase.error)
    }

    @Test func limitOverSizeNamesRuleAndLine() {
        // v=0, then 33 lines of 1,000 bytes (lines 2–34): the 32,768-byte limit is crossed on line 34.
        let line = "a=" + String(repeating: "x", count: 996) + "\r\n"
        let text = "v=0\r\n" + String(repeating: line, count: 33)
        let error = sdpError { () throws(SDPError) in try SessionDescription(parsing: text) }
        #expect(error == .tooLarge(line: 34, bytes: text.utf8.count, limit: 32 * 1024))
        #expect(error?.description.contains("32768-byte limit") == true)
    }

    @Test func limitTooManyLines() {
        let text = "v=0\r\n" + String(repeating: "a=x\r\n", count: 1000)
        #expect(sdpError { () throws(SDPError) in try SessionDescription(parsing: text) } == .tooManyLines(line: 1001, limit: 1000))
        let exactly = "v=0\r\n" + String(repeating: "a=x\r\n", count: 999)
        #expect(sdpError { () throws(SDPError) in try SessionDescription(parsing: exactly) } == nil)
    }

    @Test func limitLineTooLong() {
        let text = Self.head + "a=" + String(repeating: "x", count: 4095) + "\r\n"
        #expect(sdpError { () throws(SDPError) in try SessionDescription(parsing: text) } ==
            .lineTooLong(line: 5, length: 4097, limit: 4096))
        let fits = Self.head + "a=" + String(repeating: "x", count: 4094) + "\r\n"
        #expect(sdpError { () throws(SDPError) in try SessionDescription(parsing: fits) } == nil)
    }

    @Test func errorDescriptionsCarryLineNumbers() {
        let error = SDPError.invalidAttribute(line: 6, name: "rtpmap", rule: "rtpmap needs <encoding>/<clock rate> (RFC 8866 §6.6)")
        #expect(error.line == 6)
        #expect(error.description == "SDP line 6: invalid a=rtpmap: rtpmap needs <encoding>/<clock rate> (RFC 8866 §6.6)")
        #expect(SDPError.empty.line == nil)
    }
}
