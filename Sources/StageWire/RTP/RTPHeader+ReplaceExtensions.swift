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
    public static func copy(
        _ packet: UnsafeRawBufferPointer, replacingExtensionsWith id: UInt8, value: some RTPHeaderExtensionValue,
        into destination: UnsafeMutableRawBufferPointer
    ) -> Int? {
        let valueSize = value.marshalSize
        guard (1...14).contains(id), (1...16).contains(valueSize), packet.count >= fixedSize else { return nil }
        let csrcEnd = fixedSize + 4 * Int(packet[0] & 0x0F)
        var payloadStart = csrcEnd
        if packet[0] & RTPHeaderBits.extensionMask != 0 {
            guard packet.count >= csrcEnd + extensionHeaderSize else { return nil }
            let words = Int(packet[csrcEnd + 2]) << 8 | Int(packet[csrcEnd + 3])
            payloadStart = csrcEnd + extensionHeaderSize + 4 * words
        }
        guard payloadStart <= packet.count else { return nil }
        let bodySize = (1 + valueSize + 3) / 4 * 4
        let blockEnd = csrcEnd + extensionHeaderSize + bodySize
        let length = blockEnd + packet.count - payloadStart
        guard destination.count >= length else { return nil }
        UnsafeMutableRawBufferPointer(rebasing: destination[..<csrcEnd]).copyMemory(from: UnsafeRawBufferPointer(rebasing: packet[..<csrcEnd]))
        destination[0] |= RTPHeaderBits.extensionMask
        let profile = RTPExtensionForm.oneByte.profile
        destination[csrcEnd] = UInt8(truncatingIfNeeded: profile >> 8)
        destination[csrcEnd + 1] = UInt8(truncatingIfNeeded: profile)
        destination[csrcEnd + 2] = UInt8(truncatingIfNeeded: (bodySize / 4) >> 8)
        destination[csrcEnd + 3] = UInt8(truncatingIfNeeded: bodySize / 4)
        let body = csrcEnd + extensionHeaderSize
        destination[body] = id << 4 | UInt8(valueSize - 1)
        value.write(to: UnsafeMutableRawBufferPointer(rebasing: destination[(body + 1)..<(body + 1 + valueSize)]))
        UnsafeMutableRawBufferPointer(rebasing: destination[(body + 1 + valueSize)..<blockEnd]).initializeMemory(as: UInt8.self, repeating: 0)
        UnsafeMutableRawBufferPointer(rebasing: destination[blockEnd..<length])
            .copyMemory(from: UnsafeRawBufferPointer(rebasing: packet[payloadStart...]))
        return length
    }
}
