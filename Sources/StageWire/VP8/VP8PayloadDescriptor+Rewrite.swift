/// Where each field of a VP8 payload descriptor sits (RFC 7741 §4.2): the one pass shared by
/// parsing and the in-place rewrites. Reads only the descriptor octets; allocates nothing.
struct VP8DescriptorLayout {
    var first: UInt8
    var flags: UInt8 = 0
    var pictureIDOffset: Int?
    var longPictureID = false
    var tl0PicIdxOffset: Int?
    var tidKeyIndexOffset: Int?
    /// Bytes of the descriptor.
    var size: Int

    init(_ payload: UnsafeRawBufferPointer) throws(VP8Error) {
        var reader = RTPByteReader(payload)
        guard let first = reader.readUInt8() else { throw .emptyPayload }
        self.first = first
        self.size = 1
        guard first & VP8DescriptorBits.extended != 0 else { return }
        guard let flags = reader.readUInt8() else { throw .descriptorTooShort(needed: 2, got: payload.count) }
        self.flags = flags
        if flags & VP8DescriptorBits.pictureIDPresent != 0 {
            pictureIDOffset = reader.offset
            guard let high = reader.readUInt8() else { throw .descriptorTooShort(needed: reader.offset + 1, got: payload.count) }
            if high & VP8DescriptorBits.longPictureID != 0 {
                longPictureID = true
                guard reader.skip(1) else { throw .descriptorTooShort(needed: reader.offset + 1, got: payload.count) }
            }
        }
        if flags & VP8DescriptorBits.tl0PicIdxPresent != 0 {
            tl0PicIdxOffset = reader.offset
            guard reader.skip(1) else { throw .descriptorTooShort(needed: reader.offset + 1, got: payload.count) }
        }
        if flags & (VP8DescriptorBits.tidPresent | VP8DescriptorBits.keyIndexPresent) != 0 {
            tidKeyIndexOffset = reader.offset
            guard reader.skip(1) else { throw .descriptorTooShort(needed: reader.offset + 1, got: payload.count) }
        }
        size = reader.offset
    }

    /// The field values, read from `payload` at the offsets found.
    func descriptor(in payload: UnsafeRawBufferPointer) -> VP8PayloadDescriptor {
        var pictureID: UInt16?
        if let offset = pictureIDOffset {
            pictureID = longPictureID
                ? UInt16(payload[offset] & 0x7F) << 8 | UInt16(payload[offset + 1])
                : UInt16(payload[offset] & 0x7F)
        }
        var temporalLayerID: UInt8?
        var layerSync = false
        var keyIndex: UInt8?
        if let offset = tidKeyIndexOffset {
            let byte = payload[offset]
            if flags & VP8DescriptorBits.tidPresent != 0 {
                temporalLayerID = byte >> VP8DescriptorBits.tidShift
                layerSync = byte & VP8DescriptorBits.layerSync != 0
            }
            if flags & VP8DescriptorBits.keyIndexPresent != 0 { keyIndex = byte & VP8DescriptorBits.keyIndexMask }
        }
        return VP8PayloadDescriptor(
            nonReferenceFrame: first & VP8DescriptorBits.nonReference != 0,
            startOfPartition: first & VP8DescriptorBits.startOfPartition != 0,
            partitionIndex: first & VP8DescriptorBits.partitionIndexMask, pictureID: pictureID,
            longPictureID: longPictureID, tl0PicIdx: tl0PicIdxOffset.map { payload[$0] },
            temporalLayerID: temporalLayerID, layerSync: layerSync, keyIndex: keyIndex)
    }
}

extension VP8PayloadDescriptor {
    /// Overwrites the PictureID in place, keeping the width the packet already uses (M bit):
    /// a 7-bit ID keeps only the low 7 bits of `pictureID`, a 15-bit one the low 15. The SFU
    /// calls this when it splices simulcast layers into one continuous PictureID sequence.
    /// - Parameter payload: the RTP payload (from its first descriptor octet).
    /// - Throws: `VP8Error.pictureIDAbsent` if I = 0, and the parse errors.
    public static func setPictureID(_ pictureID: UInt16, in payload: UnsafeMutableRawBufferPointer) throws(VP8Error) {
        let layout = try VP8DescriptorLayout(UnsafeRawBufferPointer(payload))
        guard layout.pictureIDOffset != nil else { throw .pictureIDAbsent }
        writePictureID(pictureID, layout: layout, in: payload)
    }

    /// Overwrites TL0PICIDX in place (RFC 7741 §4.2), for the same layer splicing.
    /// - Throws: `VP8Error.tl0PicIdxAbsent` if L = 0, and the parse errors.
    public static func setTL0PicIdx(_ tl0PicIdx: UInt8, in payload: UnsafeMutableRawBufferPointer) throws(VP8Error) {
        let layout = try VP8DescriptorLayout(UnsafeRawBufferPointer(payload))
        guard let offset = layout.tl0PicIdxOffset else { throw .tl0PicIdxAbsent }
        payload[offset] = tl0PicIdx
    }

    /// Overwrites whichever of PictureID and TL0PICIDX the descriptor carries, in one parse;
    /// fields the descriptor lacks are left alone (no error), so one call serves every packet.
    /// - Returns: the descriptor size, where the VP8 data starts.
    @discardableResult
    public static func rewrite(pictureID: UInt16, tl0PicIdx: UInt8, in payload: UnsafeMutableRawBufferPointer) throws(VP8Error) -> Int {
        let layout = try VP8DescriptorLayout(UnsafeRawBufferPointer(payload))
        writePictureID(pictureID, layout: layout, in: payload)
        if let offset = layout.tl0PicIdxOffset { payload[offset] = tl0PicIdx }
        return layout.size
    }

    /// The PictureID and TL0PICIDX a descriptor carries, each passed through `map` and written
    /// back in place, in one parse (an SFU splicing simulcast layers into one sequence). A field
    /// the descriptor lacks is given as nil and left alone; a 7-bit PictureID comes in and goes
    /// out in 7 bits (with `isLong` false).
    /// - Returns: what `map` returned (written in the field's width: a PictureID's low 7 or 15 bits).
    /// - Throws: the parse errors; nothing is written then.
    @discardableResult
    public static func mapPictureFields(
        in payload: UnsafeMutableRawBufferPointer,
        _ map: (_ pictureID: (value: UInt16, isLong: Bool)?, _ tl0PicIdx: UInt8?) -> (pictureID: UInt16?, tl0PicIdx: UInt8?)
    ) throws(VP8Error) -> (pictureID: UInt16?, tl0PicIdx: UInt8?) {
        let layout = try VP8DescriptorLayout(UnsafeRawBufferPointer(payload))
        let pictureID = layout.pictureIDOffset.map { offset in
            (value: layout.longPictureID ? UInt16(payload[offset] & 0x7F) << 8 | UInt16(payload[offset + 1]) : UInt16(payload[offset] & 0x7F),
             isLong: layout.longPictureID)
        }
        let mapped = map(pictureID, layout.tl0PicIdxOffset.map { payload[$0] })
        if let value = mapped.pictureID { writePictureID(value, layout: layout, in: payload) }
        if let value = mapped.tl0PicIdx, let offset = layout.tl0PicIdxOffset { payload[offset] = value }
        return mapped
    }

    /// Writes the PictureID at the layout's offset in the packet's width; no-op without one.
    private static func writePictureID(_ pictureID: UInt16, layout: VP8DescriptorLayout, in payload: UnsafeMutableRawBufferPointer) {
        guard let offset = layout.pictureIDOffset else { return }
        if layout.longPictureID {
            payload[offset] = VP8DescriptorBits.longPictureID | UInt8(truncatingIfNeeded: pictureID >> 8) & 0x7F
            payload[offset + 1] = UInt8(truncatingIfNeeded: pictureID)
        } else {
            payload[offset] = UInt8(truncatingIfNeeded: pictureID) & 0x7F
        }
    }
}
