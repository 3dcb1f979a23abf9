extension RTPHeader {
    /// Appends the header — fixed part, CSRCs and, when `extensionProfile` is set, the extension
    /// header and `extensionLength` bytes of extension data (RFC 3550 §5.1, §5.3.1) — to `out`.
    ///
    /// Writes exactly `marshalSize` bytes. The payload and any padding are the caller's to append
    /// (set `padding` only if you append padding whose last octet is its count).
    ///
    /// - Parameters:
    ///   - out: the buffer to append to.
    ///   - extensionBody: the extension data to copy; bytes beyond `extensionLength` are ignored
    ///     and missing ones are written as zero (RFC 8285 padding). Build RFC 8285 data with
    ///     `RTPExtensionBlockBuilder`, or pass the source packet's `extensionRange` bytes to copy.
    public func serialize(into out: inout [UInt8], extensionBody: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)) {
        out.reserveCapacity(out.count + marshalSize)
        var first = Self.version << RTPHeaderBits.versionShift | UInt8(csrcs.count)
        if padding { first |= RTPHeaderBits.paddingMask }
        if hasExtension { first |= RTPHeaderBits.extensionMask }
        out.appendBigEndian(first)
        out.appendBigEndian((marker ? RTPHeaderBits.markerMask : 0) | (payloadType & RTPHeaderBits.payloadTypeMask))
        out.appendBigEndian(sequenceNumber)
        out.appendBigEndian(timestamp)
        out.appendBigEndian(ssrc)
        for csrc in csrcs { out.appendBigEndian(csrc) }
        guard let extensionProfile else { return }
        let bodySize = Self.roundedToWords(extensionLength)
        out.appendBigEndian(extensionProfile)
        out.appendBigEndian(UInt16(truncatingIfNeeded: bodySize / 4))
        let copied = min(bodySize, extensionBody.count)
        if copied > 0 { out.append(contentsOf: extensionBody[0..<copied]) }
        out.appendWireZeros(bodySize - copied)
    }

    /// Appends the header with `extensionBody` as the extension data; see `serialize(into:extensionBody:)`.
    public func serialize(into out: inout [UInt8], extensionBody: [UInt8]) {
        extensionBody.withUnsafeBytes { serialize(into: &out, extensionBody: $0) }
    }

    /// The header as a new array (fixed part, CSRCs, zero-filled extension data if any).
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        serialize(into: &out)
        return out
    }
}

extension RTPHeader {
    /// Overwrites the sequence number of the RTP packet in `packet` without re-serializing
    /// (bytes 2–3, RFC 3550 §5.1). For the SFU's munger on the forwarding path.
    /// - Throws: `RTPError.headerTooShort` when `packet` has fewer than 12 bytes.
    public static func setSequenceNumber(_ sequenceNumber: UInt16, in packet: UnsafeMutableRawBufferPointer) throws(RTPError) {
        try checkFixedHeader(packet)
        packet.storeWireUInt16(sequenceNumber, at: 2)
    }

    /// Overwrites the timestamp in place (bytes 4–7, RFC 3550 §5.1).
    public static func setTimestamp(_ timestamp: UInt32, in packet: UnsafeMutableRawBufferPointer) throws(RTPError) {
        try checkFixedHeader(packet)
        packet.storeWireUInt32(timestamp, at: 4)
    }

    /// Overwrites the SSRC in place (bytes 8–11, RFC 3550 §5.1).
    public static func setSSRC(_ ssrc: UInt32, in packet: UnsafeMutableRawBufferPointer) throws(RTPError) {
        try checkFixedHeader(packet)
        packet.storeWireUInt32(ssrc, at: 8)
    }

    /// Overwrites the 7-bit payload type in place, keeping the marker bit (byte 1, RFC 3550 §5.1).
    /// - Throws: `RTPError.invalidPayloadType` above 127, `.headerTooShort` under 12 bytes.
    public static func setPayloadType(_ payloadType: UInt8, in packet: UnsafeMutableRawBufferPointer) throws(RTPError) {
        guard payloadType <= RTPHeaderBits.payloadTypeMask else { throw .invalidPayloadType(payloadType) }
        try checkFixedHeader(packet)
        packet[1] = (packet[1] & RTPHeaderBits.markerMask) | payloadType
    }

    /// Sets or clears the marker bit in place, keeping the payload type (byte 1, RFC 3550 §5.1).
    public static func setMarker(_ marker: Bool, in packet: UnsafeMutableRawBufferPointer) throws(RTPError) {
        try checkFixedHeader(packet)
        packet[1] = (packet[1] & RTPHeaderBits.payloadTypeMask) | (marker ? RTPHeaderBits.markerMask : 0)
    }

    /// The munger's usual rewrite in one bounds check: sequence number, timestamp and SSRC.
    public static func rewrite(
        sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32, in packet: UnsafeMutableRawBufferPointer
    ) throws(RTPError) {
        try checkFixedHeader(packet)
        packet.storeWireUInt16(sequenceNumber, at: 2)
        packet.storeWireUInt32(timestamp, at: 4)
        packet.storeWireUInt32(ssrc, at: 8)
    }

    private static func checkFixedHeader(_ packet: UnsafeMutableRawBufferPointer) throws(RTPError) {
        guard packet.count >= fixedSize else { throw .headerTooShort(needed: fixedSize, got: packet.count) }
    }
}
