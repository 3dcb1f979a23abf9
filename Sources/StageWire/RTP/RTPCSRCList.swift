/// The contributing sources of an RTP packet (RFC 3550 §5.1: "CSRC list: 0 to 15 items, 32 bits
/// each"), stored inline so parsing a header never allocates.
///
/// Storage is one `SIMD16<UInt32>` (64 bytes, no heap) plus a count; lanes past `count` are kept
/// zero so the synthesized equality and hashing are correct.
public struct RTPCSRCList: RandomAccessCollection, MutableCollection, Hashable, Sendable,
    ExpressibleByArrayLiteral, CustomStringConvertible
{
    /// The CC field is 4 bits (RFC 3550 §5.1).
    public static let capacity = 15

    private var storage: SIMD16<UInt32> = .zero
    private var length: UInt8 = 0

    /// An empty list.
    public init() {}

    /// A list of at most 15 sources.
    /// - Throws: `RTPError.tooManyCSRCs` with more than 15.
    public init(_ sources: some Sequence<UInt32>) throws(RTPError) {
        for source in sources {
            guard append(source) else { throw .tooManyCSRCs(Int(length) + 1) }
        }
    }

    /// An array literal of at most 15 sources; extra elements are dropped (literals are code,
    /// not network input, so keep them short).
    public init(arrayLiteral elements: UInt32...) {
        for element in elements.prefix(Self.capacity) { append(element) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { Int(length) }

    public subscript(position: Int) -> UInt32 {
        get {
            precondition(position >= 0 && position < Int(length), "CSRC index out of range")
            return storage[position]
        }
        set {
            precondition(position >= 0 && position < Int(length), "CSRC index out of range")
            storage[position] = newValue
        }
    }

    /// Adds a source; `false` (unchanged) when the list already holds 15.
    @discardableResult
    public mutating func append(_ source: UInt32) -> Bool {
        guard length < Self.capacity else { return false }
        storage[Int(length)] = source
        length += 1
        return true
    }

    /// Removes every source.
    public mutating func removeAll() {
        storage = .zero
        length = 0
    }

    public var description: String {
        "[" + map { String($0) }.joined(separator: ", ") + "]"
    }
}
