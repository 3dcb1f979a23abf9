extension RTPHeader {
    /// Parses an RTP packet's header and finds its payload, following RFC 3550 §5.1 (fixed
    /// header, CSRC list, P bit) and §5.3.1 (header extension).
    ///
    /// Validates, in order: the 12-byte fixed header is present, V = 2, the CC CSRCs fit, the
    /// extension header and its declared length fit, and with P set the last octet is a non-zero
    /// padding count no larger than the bytes after the header. RFC 8285 extension elements are
    /// not walked here (use `extensions(in:)`), so the hot path stays one pass over ≤ 76 bytes.
    /// Nothing is allocated.
    ///
    /// - Parameter packet: one whole RTP packet (after SRTP decryption).
    /// - Returns: the header and the payload's byte range in `packet`, padding excluded. The
    ///   padding length is `packet.count - payload.upperBound`.
    /// - Throws: `RTPError` naming the first field that was short or invalid.
    public static func parse(_ packet: UnsafeRawBufferPointer) throws(RTPError) -> (header: RTPHeader, payload: Range<Int>) {
        // One bounds check for the fixed header, then plain loads.
        guard packet.count >= fixedSize else { throw .headerTooShort(needed: fixedSize, got: packet.count) }
        let first = packet[0]
        let second = packet[1]
        let version = first >> RTPHeaderBits.versionShift
        guard version == Self.version else { throw .badVersion(version) }

        let csrcCount = Int(first & RTPHeaderBits.csrcCountMask)
        let csrcEnd = fixedSize + 4 * csrcCount
        guard packet.count >= csrcEnd else { throw .csrcListTooShort(needed: csrcEnd, got: packet.count) }
        var csrcs = RTPCSRCList()
        var offset = fixedSize
        while offset < csrcEnd {
            csrcs.append(UInt32(bigEndian: packet.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
            offset += 4
        }

        var extensionProfile: UInt16?
        var extensionLength = 0
        if first & RTPHeaderBits.extensionMask != 0 {
            var reader = RTPByteReader(packet, offset: csrcEnd)
            guard let profile = reader.readUInt16(), let words = reader.readUInt16() else {
                throw .extensionHeaderTooShort(needed: csrcEnd + extensionHeaderSize, got: packet.count)
            }
            extensionLength = Int(words) * 4
            guard reader.skip(extensionLength) else {
                throw .extensionTooShort(needed: reader.offset + extensionLength, got: packet.count)
            }
            extensionProfile = profile
            offset = reader.offset
        }

        let payloadStart = offset
        var payloadEnd = packet.count
        let hasPadding = first & RTPHeaderBits.paddingMask != 0
        if hasPadding {
            let available = packet.count - payloadStart
            // With no byte after the header the "last octet" would be part of the header.
            guard available > 0 else { throw .paddingExceedsPayload(padding: 1, available: 0) }
            let count = Int(packet[packet.count - 1])
            guard count > 0 else { throw .paddingCountZero }
            guard count <= available else { throw .paddingExceedsPayload(padding: count, available: available) }
            payloadEnd -= count
        }

        let header = RTPHeader(
            padding: hasPadding, marker: second & RTPHeaderBits.markerMask != 0,
            payloadType: second & RTPHeaderBits.payloadTypeMask,
            sequenceNumber: UInt16(bigEndian: packet.loadUnaligned(fromByteOffset: 2, as: UInt16.self)),
            timestamp: UInt32(bigEndian: packet.loadUnaligned(fromByteOffset: 4, as: UInt32.self)),
            ssrc: UInt32(bigEndian: packet.loadUnaligned(fromByteOffset: 8, as: UInt32.self)),
            csrcs: csrcs, extensionProfile: extensionProfile, extensionLength: extensionLength)
        return (header, payloadStart..<payloadEnd)
    }

    /// Parses an RTP packet held in an array; see `parse(_:)` over a raw buffer.
    public static func parse(_ packet: [UInt8]) throws(RTPError) -> (header: RTPHeader, payload: Range<Int>) {
        try packet.withUnsafeBytes { bytes in
            Result { () throws(RTPError) in try parse(bytes) }
        }.get()
    }
}

extension RTPHeader {
    /// Where the payload of a packet whose header was already checked starts: after the fixed
    /// header, the CSRC list and the extension block (RFC 3550 §5.1, §5.3.1); nil when those do
    /// not fit. For a copy whose extension block was replaced since it was parsed.
    public static func payloadStart(_ packet: UnsafeRawBufferPointer) -> Int? {
        guard packet.count >= fixedSize else { return nil }
        var offset = fixedSize + 4 * Int(packet[0] & RTPHeaderBits.csrcCountMask)
        if packet[0] & RTPHeaderBits.extensionMask != 0 {
            guard packet.count >= offset + extensionHeaderSize else { return nil }
            let words = Int(UInt16(bigEndian: packet.loadUnaligned(fromByteOffset: offset + 2, as: UInt16.self)))
            offset += extensionHeaderSize + 4 * words
        }
        return offset <= packet.count ? offset : nil
    }
}
