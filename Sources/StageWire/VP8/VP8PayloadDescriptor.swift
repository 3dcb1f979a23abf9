/// The VP8 payload descriptor that opens every VP8 RTP payload (RFC 7741 §4.2):
///
/// ```
///       0 1 2 3 4 5 6 7
///      +-+-+-+-+-+-+-+-+
///      |X|R|N|S|R| PID | (REQUIRED)
///      +-+-+-+-+-+-+-+-+
/// X:   |I|L|T|K| RSV   | (OPTIONAL)
///      +-+-+-+-+-+-+-+-+
/// I:   |M| PictureID   | (OPTIONAL)
///      +-+-+-+-+-+-+-+-+
///      |   PictureID   | (when M = 1: 15-bit PictureID)
///      +-+-+-+-+-+-+-+-+
/// L:   |   TL0PICIDX   | (OPTIONAL)
///      +-+-+-+-+-+-+-+-+
/// T/K: |TID|Y| KEYIDX  | (OPTIONAL)
///      +-+-+-+-+-+-+-+-+
/// ```
///
/// Optional fields are `nil` when absent. Reserved bits are ignored on parse and written as 0;
/// X is written only when an optional field is present. TID and Y are only read with T = 1,
/// KEYIDX only with K = 1.
public struct VP8PayloadDescriptor: Hashable, Sendable {
    /// N: the frame can be discarded without affecting any other frame.
    public var nonReferenceFrame: Bool
    /// S: this packet starts a VP8 partition.
    public var startOfPartition: Bool
    /// PID: the partition index, 0–7.
    public var partitionIndex: UInt8
    /// PictureID, 7 or 15 bits; `nil` when I = 0.
    public var pictureID: UInt16?
    /// M: the PictureID is 15 bits (two octets). Chrome always sends 15-bit IDs. The
    /// initializer forces it to `false` without a PictureID, as parsing does.
    public var longPictureID: Bool
    /// TL0PICIDX: running index of temporal layer 0 frames; `nil` when L = 0.
    public var tl0PicIdx: UInt8?
    /// TID: temporal layer index, 0–3; `nil` when T = 0.
    public var temporalLayerID: UInt8?
    /// Y: layer sync — the frame depends only on temporal layer 0. Only carried with a TID:
    /// the initializer forces it to `false` without one, as parsing does.
    public var layerSync: Bool
    /// KEYIDX: 5-bit temporal key frame index; `nil` when K = 0.
    public var keyIndex: UInt8?

    public init(
        nonReferenceFrame: Bool = false, startOfPartition: Bool, partitionIndex: UInt8 = 0, pictureID: UInt16? = nil,
        longPictureID: Bool = true, tl0PicIdx: UInt8? = nil, temporalLayerID: UInt8? = nil, layerSync: Bool = false,
        keyIndex: UInt8? = nil
    ) {
        self.nonReferenceFrame = nonReferenceFrame
        self.startOfPartition = startOfPartition
        self.partitionIndex = partitionIndex
        self.pictureID = pictureID
        self.longPictureID = pictureID != nil && longPictureID
        self.tl0PicIdx = tl0PicIdx
        self.temporalLayerID = temporalLayerID
        self.layerSync = temporalLayerID != nil && layerSync
        self.keyIndex = keyIndex
    }

    /// Whether the extension octet (X) is needed.
    var hasExtension: Bool { pictureID != nil || tl0PicIdx != nil || temporalLayerID != nil || keyIndex != nil }

    /// Bytes `serialize(into:)` appends.
    public var marshalSize: Int {
        guard hasExtension else { return 1 }
        var size = 2
        if pictureID != nil { size += longPictureID ? 2 : 1 }
        if tl0PicIdx != nil { size += 1 }
        if temporalLayerID != nil || keyIndex != nil { size += 1 }
        return size
    }

    /// Parses the descriptor at the start of a VP8 RTP payload (RFC 7741 §4.2).
    /// - Returns: the descriptor and its size in bytes (where the VP8 data starts).
    /// - Throws: `VP8Error.emptyPayload`, or `.descriptorTooShort` naming how many bytes the
    ///   flags promised. Allocates nothing.
    public static func parse(_ payload: UnsafeRawBufferPointer) throws(VP8Error) -> (descriptor: VP8PayloadDescriptor, size: Int) {
        let layout = try VP8DescriptorLayout(payload)
        return (layout.descriptor(in: payload), layout.size)
    }

    /// Parses the descriptor at the start of a payload held in an array; see `parse(_:)`.
    public static func parse(_ payload: [UInt8]) throws(VP8Error) -> (descriptor: VP8PayloadDescriptor, size: Int) {
        try payload.withUnsafeBytes { bytes in Result { () throws(VP8Error) in try parse(bytes) } }.get()
    }

    /// Parses the descriptor and requires VP8 data after it, as a depacketizer must.
    /// - Returns: the descriptor and the range of the VP8 data in `payload`.
    /// - Throws: as `parse(_:)`, and `VP8Error.noFrameData` when nothing follows.
    public static func parsePacket(_ payload: UnsafeRawBufferPointer) throws(VP8Error) -> (descriptor: VP8PayloadDescriptor, frame: Range<Int>) {
        let (descriptor, size) = try parse(payload)
        guard size < payload.count else { throw .noFrameData }
        return (descriptor, size..<payload.count)
    }

    /// Appends the descriptor.
    public func serialize(into out: inout [UInt8]) {
        var first = partitionIndex & VP8DescriptorBits.partitionIndexMask
        if nonReferenceFrame { first |= VP8DescriptorBits.nonReference }
        if startOfPartition { first |= VP8DescriptorBits.startOfPartition }
        guard hasExtension else {
            out.append(first)
            return
        }
        out.append(first | VP8DescriptorBits.extended)
        var flags: UInt8 = 0
        if pictureID != nil { flags |= VP8DescriptorBits.pictureIDPresent }
        if tl0PicIdx != nil { flags |= VP8DescriptorBits.tl0PicIdxPresent }
        if temporalLayerID != nil { flags |= VP8DescriptorBits.tidPresent }
        if keyIndex != nil { flags |= VP8DescriptorBits.keyIndexPresent }
        out.append(flags)
        if let pictureID {
            if longPictureID {
                out.append(VP8DescriptorBits.longPictureID | UInt8(truncatingIfNeeded: pictureID >> 8) & 0x7F)
                out.append(UInt8(truncatingIfNeeded: pictureID))
            } else {
                out.append(UInt8(truncatingIfNeeded: pictureID) & 0x7F)
            }
        }
        if let tl0PicIdx { out.append(tl0PicIdx) }
        if temporalLayerID != nil || keyIndex != nil {
            var byte = (keyIndex ?? 0) & VP8DescriptorBits.keyIndexMask
            if let temporalLayerID {
                byte |= (temporalLayerID & 0x03) << VP8DescriptorBits.tidShift
                if layerSync { byte |= VP8DescriptorBits.layerSync }
            }
            out.append(byte)
        }
    }

    /// The descriptor as a new array.
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        serialize(into: &out)
        return out
    }
}

/// Bits of the descriptor octets (RFC 7741 §4.2), named rather than bitfields.
enum VP8DescriptorBits {
    static let extended: UInt8 = 0x80
    static let nonReference: UInt8 = 0x20
    static let startOfPartition: UInt8 = 0x10
    static let partitionIndexMask: UInt8 = 0x07
    static let pictureIDPresent: UInt8 = 0x80
    static let tl0PicIdxPresent: UInt8 = 0x40
    static let tidPresent: UInt8 = 0x20
    static let keyIndexPresent: UInt8 = 0x10
    static let longPictureID: UInt8 = 0x80
    static let tidShift: UInt8 = 6
    static let layerSync: UInt8 = 0x20
    static let keyIndexMask: UInt8 = 0x1F
}
