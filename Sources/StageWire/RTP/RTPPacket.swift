/// An owned RTP packet — header, extension data, payload, padding — for building packets
/// (packetizers, probes, tests) and for round trips (RFC 3550 §5.1).
///
/// The forwarding path should not use this type: it copies. Parse with `RTPHeader.parse(_:)`
/// over the received buffer and rewrite in place instead.
public struct RTPPacket: Hashable, Sendable {
    /// The header. When serializing, `padding` follows `paddingLength` and `extensionLength`
    /// follows `extensionBody`.
    public var header: RTPHeader
    /// The extension data after the 4-byte extension header (only written when
    /// `header.extensionProfile` is set); zero-padded to 32 bits when written.
    public var extensionBody: [UInt8]
    public var payload: [UInt8]
    /// Padding octets after the payload, the count octet included; 0 for none (RFC 3550 §5.1).
    public var paddingLength: UInt8

    public init(header: RTPHeader, extensionBody: [UInt8] = [], payload: [UInt8], paddingLength: UInt8 = 0) {
        self.header = header
        self.extensionBody = extensionBody
        self.payload = payload
        self.paddingLength = paddingLength
        normalizeHeader()
    }

    /// Parses and copies a whole packet.
    /// - Throws: `RTPError` as `RTPHeader.parse(_:)` does.
    public init(parsing packet: UnsafeRawBufferPointer) throws(RTPError) {
        let (header, payload) = try RTPHeader.parse(packet)
        self.header = header
        self.extensionBody = Array(packet[header.extensionRange])
        self.payload = Array(packet[payload])
        self.paddingLength = UInt8(truncatingIfNeeded: packet.count - payload.upperBound)
    }

    /// Parses and copies a whole packet held in an array.
    public init(parsing packet: [UInt8]) throws(RTPError) {
        self = try packet.withUnsafeBytes { bytes in Result { () throws(RTPError) in try RTPPacket(parsing: bytes) } }.get()
    }

    /// Bytes `serialize(into:)` appends.
    public var marshalSize: Int {
        var header = header
        header.extensionLength = extensionBody.count
        return header.marshalSize + payload.count + Int(paddingLength)
    }

    /// Appends the packet to `out`: header, extension data, payload, then padding whose last
    /// octet is `paddingLength` (RFC 3550 §5.1).
    public func serialize(into out: inout [UInt8]) {
        var header = header
        header.padding = paddingLength > 0
        header.extensionLength = RTPHeader.roundedToWords(extensionBody.count)
        out.reserveCapacity(out.count + marshalSize)
        header.serialize(into: &out, extensionBody: extensionBody)
        out.append(contentsOf: payload)
        if paddingLength > 0 {
            out.appendWireZeros(Int(paddingLength) - 1)
            out.append(paddingLength)
        }
    }

    /// The packet as a new array.
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        serialize(into: &out)
        return out
    }

    /// Adds or replaces an RFC 8285 extension element, creating a one-byte block if there is
    /// none (RFC 8285 §4.2; two-byte if the element needs it, §4.3).
    /// - Throws: `RTPError.unsupportedExtensionProfile` for a non-RFC 8285 block, and the
    ///   builder's ID and length errors.
    public mutating func setExtension(id: UInt8, bytes: some Collection<UInt8>) throws(RTPError) {
        var builder = try currentBlock()
        try builder.set(id: id, value: bytes)
        header.extensionProfile = builder.form.profile
        extensionBody = builder.body()
        normalizeHeader()
    }

    /// Adds or replaces an extension element holding a codec's value.
    public mutating func setExtension(id: UInt8, _ value: some RTPHeaderExtensionValue) throws(RTPError) {
        try setExtension(id: id, bytes: value.serialized())
    }

    /// Decodes the extension element `id` with a codec; `nil` when absent.
    public func extensionValue<Value: RTPHeaderExtensionValue>(_ type: Value.Type, id: UInt8) throws(RTPError) -> Value? {
        guard let bytes = try currentBlock().value(id: id) else { return nil }
        return try Value(parsing: bytes)
    }

    private func currentBlock() throws(RTPError) -> RTPExtensionBlockBuilder {
        guard let profile = header.extensionProfile else { return RTPExtensionBlockBuilder() }
        return try extensionBody.withUnsafeBytes { body in
            Result { () throws(RTPError) in try RTPExtensionBlockBuilder(profile: profile, body: body) }
        }.get()
    }

    private mutating func normalizeHeader() {
        header.padding = paddingLength > 0
        header.extensionLength = header.hasExtension ? RTPHeader.roundedToWords(extensionBody.count) : 0
        if header.hasExtension { extensionBody.append(contentsOf: repeatElement(0, count: header.extensionLength - extensionBody.count)) }
    }
}
