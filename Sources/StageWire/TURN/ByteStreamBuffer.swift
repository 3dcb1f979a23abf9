/// The bytes a stream framer has received but not yet returned as frames: one array and a
/// read index, compacted when the consumed prefix grows, with a bound on what it holds.
struct ByteStreamBuffer: Sendable {
    private var storage: [UInt8] = []
    private var start = 0
    let limit: Int

    init(limit: Int) { self.limit = limit }

    /// Bytes buffered and not consumed.
    var count: Int { storage.count - start }

    /// Appends bytes read from the stream.
    /// - Throws: `bufferLimitExceeded` when more than `limit` bytes would be held.
    mutating func append<Bytes: Collection>(_ bytes: Bytes) throws(FramingError) where Bytes.Element == UInt8 {
        let total = count + bytes.count
        guard total <= limit else { throw .bufferLimitExceeded(buffered: total, limit: limit) }
        if start > 0, start >= storage.count / 2 {
            storage.removeFirst(start)
            start = 0
        }
        storage.append(contentsOf: bytes)
    }

    /// The unconsumed byte at `index` (0 is the first); the caller checks `index < count`.
    subscript(index: Int) -> UInt8 { storage[start + index] }

    /// A big-endian 16-bit value at `index`; the caller checks `index + 2 <= count`.
    func uint16(at index: Int) -> UInt16 { storage.readUInt16(at: start + index) }

    /// The unconsumed bytes `range` (relative to the first), copied.
    func bytes(_ range: Range<Int>) -> [UInt8] { Array(storage[(start + range.lowerBound) ..< (start + range.upperBound)]) }

    /// The unconsumed bytes, mutable and in place, for a scan.
    mutating func withUnsafeMutableBytes<Result>(_ body: (UnsafeMutableRawBufferPointer) -> Result) -> Result {
        let start = start
        return storage.withUnsafeMutableBytes { body(UnsafeMutableRawBufferPointer(rebasing: $0[start...])) }
    }

    /// Drops `length` bytes from the front.
    mutating func consume(_ length: Int) {
        start += length
        if start == storage.count {
            storage.removeAll(keepingCapacity: true)
            start = 0
        }
    }
}
