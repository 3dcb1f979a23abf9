extension RTPHeader {
    /// The RFC 8285 form of the extension block, or `nil` without X or with another profile.
    public var extensionForm: RTPExtensionForm? {
        extensionProfile.flatMap(RTPExtensionForm.init(profile:))
    }

    /// The RFC 8285 elements of the extension block (RFC 8285 §4.2, §4.3), read lazily from the
    /// packet this header was parsed from. Allocates nothing.
    public func extensions(in packet: UnsafeRawBufferPointer) -> RTPExtensionIterator {
        RTPExtensionIterator(packet: packet, header: self)
    }

    /// Where the value of the first element with `id` sits in `packet`, or `nil`.
    public func extensionValueRange(id: UInt8, in packet: UnsafeRawBufferPointer) -> Range<Int>? {
        for element in extensions(in: packet) where element.id == id {
            return element.valueRange
        }
        return nil
    }

    /// Decodes the element with `id` using a value codec.
    /// - Returns: the value, or `nil` if the packet has no element with `id`.
    /// - Throws: the codec's `RTPError` if the element is there but malformed.
    public func extensionValue<Value: RTPHeaderExtensionValue>(
        _ type: Value.Type, id: UInt8, in packet: UnsafeRawBufferPointer
    ) throws(RTPError) -> Value? {
        guard let range = extensionValueRange(id: id, in: packet) else { return nil }
        return try Value(parsing: UnsafeRawBufferPointer(rebasing: packet[range]))
    }

    /// Overwrites the value of an existing element in place — same ID, same length — without
    /// moving any byte (e.g. a new transport-wide sequence number or abs-send-time per hop).
    /// - Throws: `RTPError.extensionNotFound` if the element is absent,
    ///   `.extensionLengthMismatch` if its length differs from `value.marshalSize`.
    public func rewriteExtension(
        id: UInt8, with value: some RTPHeaderExtensionValue, in packet: UnsafeMutableRawBufferPointer
    ) throws(RTPError) {
        let range = try existingValueRange(id: id, length: value.marshalSize, in: packet)
        value.write(to: UnsafeMutableRawBufferPointer(rebasing: packet[range]))
    }

    /// Overwrites the raw value bytes of an existing element in place; see `rewriteExtension(id:with:in:)`.
    public func rewriteExtension(id: UInt8, bytes: some Collection<UInt8>, in packet: UnsafeMutableRawBufferPointer) throws(RTPError) {
        let range = try existingValueRange(id: id, length: bytes.count, in: packet)
        var index = range.lowerBound
        for byte in bytes {
            packet[index] = byte
            index += 1
        }
    }

    private func existingValueRange(id: UInt8, length: Int, in packet: UnsafeMutableRawBufferPointer) throws(RTPError) -> Range<Int> {
        guard let range = extensionValueRange(id: id, in: UnsafeRawBufferPointer(packet)) else {
            throw .extensionNotFound(id: id)
        }
        guard range.count == length else { throw .extensionLengthMismatch(id: id, expected: length, got: range.count) }
        return range
    }
}

extension RTPHeader {
    /// Sets the value of extension `id` in a packet held in an array, adding the element (and
    /// the extension block, setting X) if needed.
    ///
    /// Same ID with the same length is overwritten in place without moving bytes. Otherwise
    /// the block is rebuilt with `RTPExtensionBlockBuilder` (one-byte form unless an element
    /// needs two-byte, RFC 8285 §4.2/§4.3) and the payload shifted; padding is kept.
    ///
    /// - Throws: the packet's parse error, `RTPError.unsupportedExtensionProfile` for a
    ///   non-RFC 8285 block, `.invalidExtensionID` / `.invalidExtensionLength` for the element,
    ///   `.extensionBlockTooLong` beyond 65535 words.
    public static func setExtension(id: UInt8, bytes: some Collection<UInt8>, in packet: inout [UInt8]) throws(RTPError) {
        let header = try parse(packet).header
        let rebuilt: Result<RTPExtensionBlockBuilder?, RTPError> = packet.withUnsafeMutableBytes { buffer in
            Result { () throws(RTPError) -> RTPExtensionBlockBuilder? in
                if header.extensionForm != nil,
                    (try? header.rewriteExtension(id: id, bytes: bytes, in: buffer)) != nil
                {
                    return nil
                }
                var builder = try RTPExtensionBlockBuilder(packet: UnsafeRawBufferPointer(buffer), header: header)
                try builder.set(id: id, value: bytes)
                return builder
            }
        }
        guard let builder = try rebuilt.get() else { return }
        let body = builder.body()
        guard body.count / 4 <= Int(UInt16.max) else { throw .extensionBlockTooLong(bytes: body.count) }
        var block: [UInt8] = []
        block.reserveCapacity(extensionHeaderSize + body.count)
        block.appendBigEndian(builder.form.profile)
        block.appendBigEndian(UInt16(body.count / 4))
        block.append(contentsOf: body)
        packet.replaceSubrange(header.extensionHeaderOffset..<header.marshalSize, with: block)
        packet[0] |= RTPHeaderBits.extensionMask
    }

    /// Sets extension `id` to a codec's value; see `setExtension(id:bytes:in:)`.
    public static func setExtension(id: UInt8, _ value: some RTPHeaderExtensionValue, in packet: inout [UInt8]) throws(RTPError) {
        try setExtension(id: id, bytes: value.serialized(), in: &packet)
    }
}
