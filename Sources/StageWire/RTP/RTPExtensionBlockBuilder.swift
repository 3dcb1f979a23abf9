/// Builds the data of an RFC 8285 header extension block: elements in insertion order, then
/// zero padding to a 32-bit boundary (RFC 8285 §4.1, §4.2, §4.3).
///
/// Starts in the one-byte form and switches itself to the two-byte form when an element needs
/// it (ID above 14, or a value empty or longer than 16 bytes). For building packets, not the
/// forwarding path: it allocates.
public struct RTPExtensionBlockBuilder: Hashable, Sendable {
    /// The form the block will be written in.
    public private(set) var form: RTPExtensionForm
    private var elements: [Element] = []

    private struct Element: Hashable, Sendable {
        var id: UInt8
        var value: [UInt8]
    }

    /// An empty block; `form` is where it starts (a two-byte block never goes back to one-byte).
    public init(form: RTPExtensionForm = .oneByte) {
        self.form = form
    }

    /// A builder holding the elements of an existing packet's extension block (an empty
    /// one-byte builder when the packet has none).
    /// - Throws: `RTPError.unsupportedExtensionProfile` if the block is not RFC 8285.
    public init(packet: UnsafeRawBufferPointer, header: RTPHeader) throws(RTPError) {
        guard let profile = header.extensionProfile else {
            self.init()
            return
        }
        try self.init(profile: profile, buffer: packet, extensionRange: header.extensionRange)
    }

    /// A builder holding the elements of extension data `body` written in `profile`'s form.
    /// - Throws: `RTPError.unsupportedExtensionProfile` if `profile` is not RFC 8285.
    public init(profile: UInt16, body: UnsafeRawBufferPointer) throws(RTPError) {
        try self.init(profile: profile, buffer: body, extensionRange: 0..<body.count)
    }

    private init(profile: UInt16, buffer: UnsafeRawBufferPointer, extensionRange: Range<Int>) throws(RTPError) {
        guard let form = RTPExtensionForm(profile: profile) else { throw .unsupportedExtensionProfile(profile) }
        self.init(form: form)
        for element in RTPExtensionIterator(buffer: buffer, extensionRange: extensionRange, profile: profile) {
            try set(id: element.id, value: UnsafeRawBufferPointer(rebasing: buffer[element.valueRange]))
        }
    }

    /// Whether the block has no elements.
    public var isEmpty: Bool { elements.isEmpty }

    /// The IDs present, in order.
    public var ids: [UInt8] { elements.map(\.id) }

    /// The value stored for `id`, if any.
    public func value(id: UInt8) -> [UInt8]? {
        elements.first { $0.id == id }?.value
    }

    /// Adds an element, or replaces the value of the element with the same ID in place.
    /// - Throws: `RTPError.invalidExtensionID` for ID 0 (or 15 in a one-byte value that cannot
    ///   move to two-byte), `.invalidExtensionLength` for values over 255 bytes.
    public mutating func set(id: UInt8, value: some Collection<UInt8>) throws(RTPError) {
        guard id != 0 else { throw .invalidExtensionID(id) }
        let length = value.count
        guard length <= 255 else { throw .invalidExtensionLength(id: id, length: length) }
        if !form.canCarry(id: id, length: length) { form = .twoByte(appBits: 0) }
        if let index = elements.firstIndex(where: { $0.id == id }) {
            elements[index].value = Array(value)
        } else {
            elements.append(Element(id: id, value: Array(value)))
        }
    }

    /// Adds or replaces an element holding a codec's value.
    public mutating func set(id: UInt8, _ value: some RTPHeaderExtensionValue) throws(RTPError) {
        try set(id: id, value: value.serialized())
    }

    /// Removes the element with `id`, if present.
    public mutating func remove(id: UInt8) {
        elements.removeAll { $0.id == id }
    }

    /// Bytes of the block data, padded to a multiple of 4.
    public var marshalSize: Int {
        let raw = elements.reduce(0) { $0 + form.elementHeaderSize + $1.value.count }
        return RTPHeader.roundedToWords(raw)
    }

    /// The block data (without the 4-byte profile/length header), zero-padded to 32 bits.
    public func body() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(marshalSize)
        for element in elements {
            switch form {
            case .oneByte:
                out.append(element.id << 4 | UInt8(element.value.count - 1))
            case .twoByte:
                out.append(element.id)
                out.append(UInt8(element.value.count))
            }
            out.append(contentsOf: element.value)
        }
        out.appendWireZeros(RTPHeader.roundedToWords(out.count) - out.count)
        return out
    }
}
