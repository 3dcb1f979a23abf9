/// Why a session description (RFC 8866) was rejected. Every case but `empty` carries the
/// 1-based line number of the offending line and names the rule it broke.
public enum SDPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No lines at all.
    case empty
    /// The description exceeds ``SessionDescription/maximumBytes``; `line` is where it crosses.
    case tooLarge(line: Int, bytes: Int, limit: Int)
    /// More than ``SessionDescription/maximumLines`` lines; `line` is the first one over.
    case tooManyLines(line: Int, limit: Int)
    /// A line longer than ``SessionDescription/maximumLineBytes`` bytes (without its CRLF).
    case lineTooLong(line: Int, length: Int, limit: Int)
    /// RFC 8866 §5: every line is `<type>=<value>`, `<type>` one letter; `reason` says what is off.
    case malformedLine(line: Int, reason: String)
    /// RFC 8866 §5: the first line must be `v=`.
    case missingVersion(line: Int)
    /// A `v=`, `o=`, `c=`, `t=` or `m=` line that does not follow its RFC 8866 §5 grammar.
    case invalidLine(line: Int, type: Character, rule: String)
    /// An `a=` line of a known attribute that does not follow its grammar (`rule` cites the RFC).
    case invalidAttribute(line: Int, name: String, rule: String)

    /// The 1-based line number, `nil` for `empty`.
    public var line: Int? {
        switch self {
        case .empty: nil
        case .tooLarge(let line, _, _), .tooManyLines(let line, _), .lineTooLong(let line, _, _),
            .malformedLine(let line, _), .missingVersion(let line), .invalidLine(let line, _, _),
            .invalidAttribute(let line, _, _):
            line
        }
    }

    public var description: String {
        switch self {
        case .empty:
            "SDP is empty (RFC 8866 §5 requires at least v=, o=, s= and t=)"
        case .tooLarge(let line, let bytes, let limit):
            "SDP line \(line): description of \(bytes) bytes exceeds the \(limit)-byte limit"
        case .tooManyLines(let line, let limit):
            "SDP line \(line): more than \(limit) lines"
        case .lineTooLong(let line, let length, let limit):
            "SDP line \(line): \(length) bytes exceeds the \(limit)-byte line limit"
        case .malformedLine(let line, let reason):
            "SDP line \(line): not of the form <letter>=<value> (RFC 8866 §5): \(reason)"
        case .missingVersion(let line):
            "SDP line \(line): first line must be v=0 (RFC 8866 §5.1)"
        case .invalidLine(let line, let type, let rule):
            "SDP line \(line): invalid \(type)= line: \(rule)"
        case .invalidAttribute(let line, let name, let rule):
            "SDP line \(line): invalid a=\(name): \(rule)"
        }
    }
}

/// Why one field or attribute value does not follow its grammar; the parser adds the line
/// number and turns it into ``SDPError``.
public struct SDPValueError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The rule broken, citing the RFC section, e.g. "rtpmap needs <encoding>/<clock rate> (RFC 8866 §6.6)".
    public var rule: String

    public init(_ rule: String) { self.rule = rule }

    public var description: String { rule }
}
