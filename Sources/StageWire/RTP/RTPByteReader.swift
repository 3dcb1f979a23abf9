/// Bounds-checked big-endian reads over a borrowed buffer, shared by the RTP, RTCP and VP8
/// parsers (network byte order, RFC 3550 §5.1 / RFC 1700).
///
/// Every read returns `nil` when the bytes run short (swift-nio's `ByteBuffer` style), so a
/// parser turns shortage into a named error with one `guard` and never traps. Reads go through
/// `loadUnaligned(fromByteOffset:as:)` after an explicit bounds check: no allocation, no
/// existential, no copy.
struct RTPByteReader {
    /// The whole buffer; offsets are absolute indices into it.
    let bytes: UnsafeRawBufferPointer
    /// The next byte to read.
    private(set) var offset: Int
    /// One past the last readable byte (may be below `bytes.count` to read a sub-range).
    let end: Int

    /// - Parameters:
    ///   - bytes: the buffer to read.
    ///   - offset: the first byte to read; clamped into the buffer.
    ///   - end: one past the last byte to read; `nil` for the end of the buffer, else clamped.
    init(_ bytes: UnsafeRawBufferPointer, offset: Int = 0, end: Int? = nil) {
        self.bytes = bytes
        let limit = min(max(end ?? bytes.count, 0), bytes.count)
        self.end = limit
        self.offset = min(max(offset, 0), limit)
    }

    /// Bytes left between `offset` and `end`.
    var remaining: Int { end - offset }

    mutating func readUInt8() -> UInt8? {
        guard remaining >= 1 else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func readUInt16() -> UInt16? {
        guard remaining >= 2 else { return nil }
        defer { offset += 2 }
        return UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }

    /// A 24-bit big-endian field, widened.
    mutating func readUInt24() -> UInt32? {
        guard remaining >= 3 else { return nil }
        defer { offset += 3 }
        return UInt32(bytes[offset]) << 16 | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2])
    }

    mutating func readUInt32() -> UInt32? {
        guard remaining >= 4 else { return nil }
        defer { offset += 4 }
        return UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    mutating func readUInt64() -> UInt64? {
        guard remaining >= 8 else { return nil }
        defer { offset += 8 }
        return UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// Consumes `count` bytes and returns where they are; `nil` (consuming nothing) when fewer remain.
    mutating func readRange(_ count: Int) -> Range<Int>? {
        guard count >= 0, remaining >= count else { return nil }
        defer { offset += count }
        return offset..<(offset + count)
    }

    /// Consumes `count` bytes; `false` (consuming nothing) when fewer remain.
    mutating func skip(_ count: Int) -> Bool {
        readRange(count) != nil
    }

    /// Copies `count` bytes into a new array. Only for the owned RTCP/VP8 values, never RTP.
    mutating func readBytes(_ count: Int) -> [UInt8]? {
        guard let range = readRange(count) else { return nil }
        return Array(bytes[range])
    }
}

/// Big-endian stores into a caller's buffer; callers check bounds first (the in-place rewrites
/// validate the packet, then write).
extension UnsafeMutableRawBufferPointer {
    func storeWireUInt16(_ value: UInt16, at offset: Int) {
        storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt16.self)
    }

    func storeWireUInt32(_ value: UInt32, at offset: Int) {
        storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt32.self)
    }
}

/// Big-endian appends used by every `serialize(into:)` beside `appendBigEndian`.
extension Array where Element == UInt8 {
    /// The low 24 bits of `value`, big-endian.
    mutating func appendWire24(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value >> 16))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }

    /// Appends `count` zero bytes.
    mutating func appendWireZeros(_ count: Int) {
        guard count > 0 else { return }
        append(contentsOf: repeatElement(0, count: count))
    }
}
