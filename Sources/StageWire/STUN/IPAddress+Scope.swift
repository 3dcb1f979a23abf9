/// Address scopes that decide which candidates to gather and pair (RFC 8445 §5.1.1.1).
extension IPAddress {
    /// 127.0.0.0/8 or ::1.
    public var isLoopback: Bool {
        switch self {
        case .v4(let value): value >> 24 == 127
        case .v6(let high, let low): high == 0 && low == 1
        }
    }

    /// fe80::/10: usable only with a scope, never offered as a candidate.
    public var isLinkLocal: Bool {
        switch self {
        case .v4(let value): value >> 16 == 0xA9FE
        case .v6(let high, _): high >> 54 == 0x3FA
        }
    }
}
