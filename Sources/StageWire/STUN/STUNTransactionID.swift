/// The 96-bit transaction ID of RFC 8489 §5, held in three words so that it hashes and compares
/// without allocating (it keys the table of outstanding transactions).
public struct STUNTransactionID: Hashable, Sendable, CustomStringConvertible {
    /// Bytes 0–3, 4–7 and 8–11 of the ID, big-endian.
    public var high: UInt32
    public var middle: UInt32
    public var low: UInt32

    public init(high: UInt32, middle: UInt32, low: UInt32) {
        self.high = high
        self.middle = middle
        self.low = low
    }

    /// Reads 12 bytes; `nil` unless exactly 12 are given.
    public init?<Bytes: Collection>(bytes: Bytes) where Bytes.Element == UInt8 {
        guard bytes.count == 12 else { return nil }
        var words: [UInt32] = [0, 0, 0]
        for (index, byte) in bytes.enumerated() {
            words[index / 4] = words[index / 4] << 8 | UInt32(byte)
        }
        self.init(high: words[0], middle: words[1], low: words[2])
    }

    /// A fresh random ID (§5: "uniformly and randomly chosen from the interval 0 .. 2**96-1").
    public static func random() -> STUNTransactionID {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// A random ID drawn from `generator` (tests pass a seeded one).
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> STUNTransactionID {
        STUNTransactionID(high: generator.next(), middle: generator.next(), low: generator.next())
    }

    /// The 12 bytes in wire order.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(12)
        for word in [high, middle, low] { out.appendBigEndian(word) }
        return out
    }

    /// 24 lowercase hex digits.
    public var description: String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
            .joined()
    }
}
