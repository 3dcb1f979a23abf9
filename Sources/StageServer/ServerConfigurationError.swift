/// A command-line or API configuration value the server refuses, before it starts listening:
/// the flag it came from, the value, and the rule it broke.
public struct ServerConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable code for scripts, e.g. `invalid_public_ip`.
    public var code: String
    /// The command-line flag the value belongs to, e.g. `--public-ip`.
    public var flag: String
    public var value: String
    /// The rule, in words.
    public var reason: String

    public init(code: String, flag: String, value: String, reason: String) {
        self.code = code
        self.flag = flag
        self.value = value
        self.reason = reason
    }

    public var description: String { "\(flag) \(value): \(reason)" }
}
