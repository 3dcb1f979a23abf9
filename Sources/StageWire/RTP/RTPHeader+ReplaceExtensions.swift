extension RTPHeader {
    /// Copies an RTP packet into `destination`, its header extension block (if any) replaced by
    /// a one-byte-form block (RFC 8285 §4.2) holding one element: `id` with `value`. Fixed header,
    /// CSRCs (RFC 3550 §5.1), payload and padding are copied as they are; X is set. What a
    /// forwarding hop uses to give each receiver only the elements it negotiated, with its IDs.
    ///
    /// Reads only the header's length fields: `packet` must be RTP whose header was checked.
    /// Allocates nothing.
    /// - Parameter id: 1…14 (RFC 8285 §4.2); `value` takes 1…16 bytes.
    /// - Returns: the length written, or nil when `packet` is shorter than its header says, the
    ///   element does not fit the one-byte form, or `destination` is too small.
    ///
    /// Inlinable: it runs for every packet forwarded, and a generic call from another module
    /// would otherwise look up the value type's metadata each time instead of being specialized.
    @inlinable
    public static func copy(
        _ packet: UnsafeRawBufferPointer, replacingExtensionsWith id: UInt8, value: some RTPHeaderExtensionValue,
        into destination: UnsafeMutableRawBufferPointer
    ) -> Int? {
        guard fitsOneByteForm(id: id, size: value.marshalSize) else { return nil }
        return copy(packet, elementBytes: 1 + value.marshalSize, into: destination) { body in
            writeElement(id: id, value: value, at: body, in: destination)
        }
    }

    /// The same with two elements, `first` then `second` (e.g. abs-send-time and a transport-wide
    /// sequence number); nil also when both have the same ID. Inlinable, like the one-element copy.
    @inlinable
    public static func copy<First: RTPHeaderExtensionValue, Second: RTPHeaderExtensionValue>(
        _ packet: UnsafeRawBufferPointer, replacingExtensionsWith first: (id: UInt8, value: First),
        and second: (id: UInt8, value: Second), into destination: UnsafeMutableRawBufferPointer
    ) -> Int? {
        let firstSize = first.value.marshalSize, secondSize = second.value.marshalSize
        guard fitsOneByteForm(id: first.id, size: firstSize), fitsOneByteForm(id: second.id, size: secondSize),
              first.id != second.id else { return nil }
        return copy(packet, elementBytes: 2 + firstSize + secondSize, into: destination) { body in
            let next = writeElement(id: first.id, value: first.value, at: body, in: destination)
            return writeElement(id: second.id, value: second.value, at: next, in: destination)
        }
    }

    @usableFromInline
    static func fitsOneByteForm(id: UInt8, size: Int) -> Bool {
        (1...14).contains(id) && (1...16).contains(size)
    }

    /// Writes one one-byte-form element at `offset`; returns the offset after it.
    @inlinable @inline(__always) @discardableResult
    static func writeElement(id: UInt8, value: some RTPHeaderExtensionValue, at offset: Int,
                                     in destination: UnsafeMutableRawBufferPointer) -> Int {
        let size = value.marshalSize
        destination[offset] = id << 4 | UInt8(size - 1)
        value.write(to: UnsafeMutableRawBufferPointer(rebasing: destination[(offset + 1)..<(offset + 1 + size)]))
        return offset + 1 + size
    }

    /// Copies header and payload around a new one-byte-form block of `elementBytes` (padded to
    /// words) that `writeElements` fills from the offset it is given; returns the offset after them.
    @inlinable @inline(__always)
    static func copy(_ packet: UnsafeRawBufferPointer, elementBytes: Int, into destination: UnsafeMutableRawBufferPointer,
                             writeElements: (Int) -> Int) -> Int? {
        guard packet.count >= fixedSize else { return nil }
        let csrcEnd = fixedSize + 4 * Int(packet[0] & 0x0F)
        var payloadStart = csrcEnd
        if packet[0] & RTPHeaderBits.extensionMask != 0 {
            guard packet.count >= csrcEnd + extensionHeaderSize else { return nil }
            let words = Int(packet[csrcEnd + 2]) << 8 | Int(packet[csrcEnd + 3])
            payloadStart = csrcEnd + extensionHeaderSize + 4 * words
        }
        guard payloadStart <= packet.count else { return nil }
        let bodySize = (elementBytes + 3) / 4 * 4
        let blockEnd = csrcEnd + extensionHeaderSize + bodySize
        let length = blockEnd + packet.count - payloadStart
        guard destination.count >= length else { return nil }
        UnsafeMutableRawBufferPointer(rebasing: destination[..<csrcEnd]).copyMemory(from: UnsafeRawBufferPointer(rebasing: packet[..<csrcEnd]))
        destination[0] |= RTPHeaderBits.extensionMask
        let profile = RTPExtensionForm.oneByteProfile
        destination[csrcEnd] = UInt8(truncatingIfNeeded: profile >> 8)
        destination[csrcEnd + 1] = UInt8(truncatingIfNeeded: profile)
        destination[csrcEnd + 2] = UInt8(truncatingIfNeeded: (bodySize / 4) >> 8)
        destination[csrcEnd + 3] = UInt8(truncatingIfNeeded: bodySize / 4)
        let elementsEnd = writeElements(csrcEnd + extensionHeaderSize)
        UnsafeMutableRawBufferPointer(rebasing: destination[elementsEnd..<blockEnd]).initializeMemory(as: UInt8.self, repeating: 0)
        UnsafeMutableRawBufferPointer(rebasing: destination[blockEnd..<length])
            .copyMemory(from: UnsafeRawBufferPointer(rebasing: packet[payloadStart...]))
        return length
    }
}
