/// The two RFC 8285 layouts of an RTP header extension block, told apart by the profile field.
public enum RTPExtensionForm: Hashable, Sendable {
    /// Profile 0xBEDE: each element is a 4-bit ID (1–14) and 4-bit length − 1 (RFC 8285 §4.2).
    case oneByte
    /// Profile 0x100X: each element is an 8-bit ID (1–255) and 8-bit length (RFC 8285 §4.3);
    /// the low 4 bits of the profile are "appbits" the application may use.
    case twoByte(appBits: UInt8)

    /// "defined by profile" value of the one-byte form (RFC 8285 §4.2).
    public static let oneByteProfile: UInt16 = 0xBEDE
    /// Upper 12 bits of the two-byte form's profile, 0x100 (RFC 8285 §4.3).
    public static let twoByteProfileBase: UInt16 = 0x1000
    static let twoByteProfileMask: UInt16 = 0xFFF0
    /// One-byte ID 15 is reserved: parsing stops there (RFC 8285 §4.2).
    public static let oneByteReservedID: UInt8 = 15

    /// The form a profile value selects, or `nil` for a non-RFC 8285 profile.
    public init?(profile: UInt16) {
        if profile == Self.oneByteProfile {
            self = .oneByte
        } else if profile & Self.twoByteProfileMask == Self.twoByteProfileBase {
            self = .twoByte(appBits: UInt8(profile & 0x000F))
        } else {
            return nil
        }
    }

    /// The "defined by profile" value to write.
    public var profile: UInt16 {
        switch self {
        case .oneByte: Self.oneByteProfile
        case let .twoByte(appBits): Self.twoByteProfileBase | UInt16(appBits & 0x0F)
        }
    }

    /// Bytes of each element's ID + length header.
    public var elementHeaderSize: Int {
        switch self {
        case .oneByte: 1
        case .twoByte: 2
        }
    }

    /// Whether an element with this ID and value length fits the form (RFC 8285 §4.2, §4.3).
    public func canCarry(id: UInt8, length: Int) -> Bool {
        switch self {
        case .oneByte: id >= 1 && id <= 14 && length >= 1 && length <= 16
        case .twoByte: id >= 1 && length >= 0 && length <= 255
        }
    }
}

/// One extension element: its local ID and where its value sits in the packet.
public struct RTPExtensionElement: Hashable, Sendable {
    /// The local identifier negotiated with `a=extmap` (RFC 8285 §5).
    public var id: UInt8
    /// The value's bytes in the packet the element was read from.
    public var valueRange: Range<Int>

    public init(id: UInt8, valueRange: Range<Int>) {
        self.id = id
        self.valueRange = valueRange
    }
}

/// Walks the RFC 8285 elements of one packet's extension block without allocating.
///
/// Padding bytes (0) are skipped (RFC 8285 §4.1); in the one-byte form ID 0 skips its byte and
/// ID 15 ends the walk (§4.2). An element whose length runs past the block ends the walk and
/// sets `isMalformed`; the elements before it are still returned (libwebrtc does the same).
/// A block in another profile yields no elements.
///
/// The iterator borrows the packet's memory: use it only while that buffer is alive.
public struct RTPExtensionIterator: IteratorProtocol, Sequence {
    private let packet: UnsafeRawBufferPointer
    private let form: RTPExtensionForm?
    private var offset: Int
    private let end: Int
    /// Set once an element ran past the end of the extension block.
    public private(set) var isMalformed = false

    /// - Parameters:
    ///   - packet: the whole packet the header was parsed from.
    ///   - header: its parsed header.
    public init(packet: UnsafeRawBufferPointer, header: RTPHeader) {
        self.init(buffer: packet, extensionRange: header.extensionRange, profile: header.extensionProfile)
    }

    /// Walks extension data held anywhere: `extensionRange` of `buffer`, in `profile`'s form.
    /// - Parameters:
    ///   - buffer: memory holding the extension data (element ranges index into it).
    ///   - extensionRange: the data after the 4-byte extension header; clamped to `buffer`.
    ///   - profile: the "defined by profile" value; `nil` or a non-RFC 8285 one yields nothing.
    public init(buffer: UnsafeRawBufferPointer, extensionRange: Range<Int>, profile: UInt16?) {
        self.packet = buffer
        self.form = profile.flatMap(RTPExtensionForm.init(profile:))
        self.end = Swift.min(extensionRange.upperBound, buffer.count)
        self.offset = Swift.min(extensionRange.lowerBound, end)
    }

    public mutating func next() -> RTPExtensionElement? {
        guard let form else { return nil }
        while offset < end {
            let byte = packet[offset]
            if byte == 0 {  // padding
                offset += 1
                continue
            }
            switch form {
            case .oneByte:
                let id = byte >> 4
                if id == 0 {  // reserved for padding: skip the byte whatever its length bits
                    offset += 1
                    continue
                }
                if id == RTPExtensionForm.oneByteReservedID { return finish(malformed: false) }
                return element(id: id, valueStart: offset + 1, length: Int(byte & 0x0F) + 1)
            case .twoByte:
                guard offset + 1 < end else { return finish(malformed: true) }
                return element(id: byte, valueStart: offset + 2, length: Int(packet[offset + 1]))
            }
        }
        return nil
    }

    private mutating func element(id: UInt8, valueStart: Int, length: Int) -> RTPExtensionElement? {
        let valueEnd = valueStart + length
        guard valueEnd <= end else { return finish(malformed: true) }
        offset = valueEnd
        return RTPExtensionElement(id: id, valueRange: valueStart..<valueEnd)
    }

    private mutating func finish(malformed: Bool) -> RTPExtensionElement? {
        offset = end
        if malformed { isMalformed = true }
        return nil
    }
}
