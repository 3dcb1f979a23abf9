/// An RTCP packet type (RFC 3550 §12.1, RFC 4585 §6.1, RFC 3611). A struct rather than an
/// enum so unknown types stay representable: they are parsed as `RTCPRawPacket`, not errors.
public struct RTCPPacketType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let senderReport = Self(rawValue: 200)
    public static let receiverReport = Self(rawValue: 201)
    public static let sourceDescription = Self(rawValue: 202)
    public static let goodbye = Self(rawValue: 203)
    public static let applicationDefined = Self(rawValue: 204)
    /// RTPFB: transport-layer feedback (RFC 4585 §6.2).
    public static let transportFeedback = Self(rawValue: 205)
    /// PSFB: payload-specific feedback (RFC 4585 §6.3).
    public static let payloadFeedback = Self(rawValue: 206)
    /// XR (RFC 3611).
    public static let extendedReport = Self(rawValue: 207)

    public var description: String {
        switch self {
        case .senderReport: "SR"
        case .receiverReport: "RR"
        case .sourceDescription: "SDES"
        case .goodbye: "BYE"
        case .applicationDefined: "APP"
        case .transportFeedback: "RTPFB"
        case .payloadFeedback: "PSFB"
        case .extendedReport: "XR"
        default: "RTCP(\(rawValue))"
        }
    }
}

/// FMT values of the feedback messages StageWire decodes (RFC 4585 §6.2, §6.3; RFC 5104 §4.3).
public enum RTCPFeedbackFormat {
    /// RTPFB FMT 1: Generic NACK (RFC 4585 §6.2.1).
    public static let genericNACK: UInt8 = 1
    /// RTPFB FMT 15: transport-wide congestion control feedback (draft-holmer-…-01 §3.1).
    public static let transportCC: UInt8 = 15
    /// PSFB FMT 1: Picture Loss Indication (RFC 4585 §6.3.1).
    public static let pictureLossIndication: UInt8 = 1
    /// PSFB FMT 4: Full Intra Request (RFC 5104 §4.3.1).
    public static let fullIntraRequest: UInt8 = 4
    /// PSFB FMT 15: application layer feedback, e.g. REMB (RFC 4585 §6.4).
    public static let applicationLayer: UInt8 = 15
}

/// The RTCP common header (RFC 3550 §6.4.1):
///
/// ```
///  0                   1                   2                   3
/// |V=2|P|  RC/FMT |       PT      |             length            |
/// ```
public struct RTCPHeader: Hashable, Sendable {
    public static let size = 4
    /// The 5-bit count field's largest value.
    public static let maxCount: UInt8 = 31

    /// P: the packet ends with padding whose last octet counts it.
    public var padding: Bool
    /// RC (reports), SC (sources) or FMT (feedback message type), 5 bits.
    public var count: UInt8
    public var packetType: RTCPPacketType
    /// Length of the packet in 32-bit words minus one, header and padding included.
    public var length: UInt16

    public init(padding: Bool = false, count: UInt8, packetType: RTCPPacketType, length: UInt16) {
        self.padding = padding
        self.count = count
        self.packetType = packetType
        self.length = length
    }

    /// The whole packet's size in bytes, `(length + 1) × 4`.
    public var packetSize: Int { (Int(length) + 1) * 4 }

    /// Reads the 4-byte header at the start of `bytes` and checks V = 2 (the length is not
    /// checked against the buffer here; `RTCPPacketFrame` does).
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTCPError) {
        var reader = RTPByteReader(bytes)
        guard let first = reader.readUInt8(), let type = reader.readUInt8(), let length = reader.readUInt16() else {
            throw .headerTooShort(needed: Self.size, got: bytes.count)
        }
        let version = first >> 6
        guard version == RTPHeader.version else { throw .badVersion(version) }
        self.init(padding: first & 0x20 != 0, count: first & 0x1F, packetType: RTCPPacketType(rawValue: type), length: length)
    }

    /// Appends the 4 header bytes.
    public func serialize(into out: inout [UInt8]) {
        out.appendBigEndian(RTPHeader.version << 6 | (padding ? 0x20 : 0) | (count & Self.maxCount))
        out.appendBigEndian(packetType.rawValue)
        out.appendBigEndian(length)
    }
}

/// One packet's place in a buffer: its header, its bytes, and its body with padding removed.
public struct RTCPPacketFrame: Hashable, Sendable {
    public var header: RTCPHeader
    /// The whole packet, header and padding included.
    public var range: Range<Int>
    /// The bytes after the 4-byte header, padding excluded (RFC 3550 §6.4.1).
    public var bodyRange: Range<Int>

    /// Frames the packet starting at `offset`: checks the header, that the length field fits the
    /// buffer, and the padding count (non-zero, within the body).
    public init(buffer: UnsafeRawBufferPointer, offset: Int = 0) throws(RTCPError) {
        let available = max(buffer.count - offset, 0)
        let rest = UnsafeRawBufferPointer(rebasing: buffer[min(offset, buffer.count)...])
        let header = try RTCPHeader(parsing: rest)
        guard header.packetSize <= available else {
            throw .lengthExceedsBuffer(declared: header.packetSize, available: available)
        }
        let end = offset + header.packetSize
        var bodyEnd = end
        if header.padding {
            let bodyCount = header.packetSize - RTCPHeader.size
            let count = Int(buffer[end - 1])
            guard count > 0 else { throw .paddingCountZero }
            guard count <= bodyCount else { throw .paddingExceedsPacket(padding: count, available: bodyCount) }
            bodyEnd -= count
        }
        self.header = header
        self.range = offset..<end
        self.bodyRange = (offset + RTCPHeader.size)..<bodyEnd
    }
}

extension RTCPPacketFrame {
    /// Frames a buffer that must hold exactly one packet.
    /// - Throws: framing errors, or `RTCPError.trailingBytes` if bytes follow the packet.
    static func single(_ packet: UnsafeRawBufferPointer) throws(RTCPError) -> RTCPPacketFrame {
        let frame = try RTCPPacketFrame(buffer: packet)
        guard frame.range.upperBound == packet.count else { throw .trailingBytes(packet.count - frame.range.upperBound) }
        return frame
    }
}

extension RTCPHeader {
    /// Appends one packet: the header, `writeBody` (which appends exactly `bodySize` bytes), and
    /// padding to 32 bits with the P bit set and the count in the last octet (RFC 3550 §6.4.1).
    /// `out` is left as it was on error.
    /// - Throws: `RTCPError.countTooLarge` above 31, `.packetTooLong` past the length field, or
    ///   what `writeBody` throws.
    static func appendPacket(type: RTCPPacketType, count: Int, bodySize: Int, into out: inout [UInt8],
                             writeBody: (inout [UInt8]) throws(RTCPError) -> Void) throws(RTCPError) {
        guard count <= Int(maxCount) else { throw .countTooLarge(count) }
        let size = size + RTPHeader.roundedToWords(bodySize)
        guard size / 4 - 1 <= Int(UInt16.max) else { throw .packetTooLong(bytes: size) }
        let padding = size - Self.size - bodySize
        let start = out.count
        out.reserveCapacity(start + size)
        RTCPHeader(padding: padding > 0, count: UInt8(count), packetType: type, length: UInt16(size / 4 - 1)).serialize(into: &out)
        do {
            try writeBody(&out)
        } catch {
            out.removeSubrange(start...)
            throw error
        }
        if padding > 0 {
            out.appendWireZeros(padding - 1)
            out.append(UInt8(padding))
        }
    }
}
