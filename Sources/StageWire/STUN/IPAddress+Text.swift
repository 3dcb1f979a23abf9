extension IPAddress {
    /// Reads an address in text: IPv4 dotted quad (four decimal parts 0–255), or IPv6 as
    /// RFC 4291 §2.2 allows (hex groups, one `::`, an optional dotted-quad tail). Zone IDs
    /// (`%eth0`) and hostnames are not addresses: `nil`.
    public init?(_ text: some StringProtocol) {
        let utf8 = Array(text.utf8)
        if let v4 = Self.parseIPv4(utf8[...]) {
            self = .v4(v4)
        } else if let v6 = Self.parseIPv6(utf8) {
            self = v6
        } else {
            return nil
        }
    }

    static func parseIPv4(_ text: ArraySlice<UInt8>) -> UInt32? {
        let parts = text.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard !part.isEmpty, part.count <= 3 else { return nil }
            var octet: UInt32 = 0
            for byte in part {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                octet = octet * 10 + UInt32(byte - UInt8(ascii: "0"))
            }
            guard octet <= 255 else { return nil }
            value = value << 8 | octet
        }
        return value
    }

    static func parseIPv6(_ text: [UInt8]) -> IPAddress? {
        guard text.count >= 2, text.count <= 45 else { return nil }
        var head: [UInt16] = [], tail: [UInt16] = []
        var sawDoubleColon = false
        var rest = text[...]
        if rest.starts(with: [UInt8(ascii: ":"), UInt8(ascii: ":")]) {
            sawDoubleColon = true
            rest = rest.dropFirst(2)
            if rest.isEmpty { return .v6(high: 0, low: 0) }
        }
        while !rest.isEmpty {
            let groupEnd = rest.firstIndex(of: UInt8(ascii: ":")) ?? rest.endIndex
            let group = rest[..<groupEnd]
            if groupEnd == rest.endIndex, group.contains(UInt8(ascii: ".")) {
                // Embedded IPv4 in the last 32 bits (RFC 4291 §2.2 form 3).
                guard let v4 = parseIPv4(group) else { return nil }
                let pair = [UInt16(truncatingIfNeeded: v4 >> 16), UInt16(truncatingIfNeeded: v4)]
                if sawDoubleColon { tail += pair } else { head += pair }
                rest = rest[groupEnd...]
                break
            }
            guard let word = parseHexGroup(group) else { return nil }
            if sawDoubleColon { tail.append(word) } else { head.append(word) }
            rest = rest[groupEnd...]
            if rest.starts(with: [UInt8(ascii: ":"), UInt8(ascii: ":")]) {
                guard !sawDoubleColon else { return nil }
                sawDoubleColon = true
                rest = rest.dropFirst(2)
            } else if rest.first == UInt8(ascii: ":") {
                rest = rest.dropFirst()
                guard !rest.isEmpty else { return nil }
            }
        }
        let count = head.count + tail.count
        if sawDoubleColon {
            guard count <= 7 else { return nil }
        } else {
            guard count == 8 else { return nil }
        }
        let groups = head + Array(repeating: 0, count: 8 - count) + tail
        var high: UInt64 = 0, low: UInt64 = 0
        for index in 0..<4 { high = high << 16 | UInt64(groups[index]) }
        for index in 4..<8 { low = low << 16 | UInt64(groups[index]) }
        return .v6(high: high, low: low)
    }

    static func parseHexGroup(_ text: ArraySlice<UInt8>) -> UInt16? {
        guard !text.isEmpty, text.count <= 4 else { return nil }
        var value: UInt16 = 0
        for byte in text {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }
}
