/// The RTP fixed header, CSRC list and the location of the header extension (RFC 3550 §5.1,
/// §5.3.1).
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|X|  CC   |M|     PT      |       sequence number         |
/// |                           timestamp                           |
/// |           synchronization source (SSRC) identifier            |
/// |            contributing source (CSRC) identifiers             |
/// |      defined by profile       |           length              |  (if X)
/// |                        header extension                       |
/// ```
///
/// A parsed header does not copy the extension: `extensionRange` points into the buffer it was
/// parsed from (it always starts at `12 + 4 × CC + 4`), and `extensions(in:)` walks the RFC 8285
/// elements there. Parsing allocates nothing: CSRCs live inline in `RTPCSRCList`.
///
/// The version is not stored: it is always 2 (`RTPHeader.version`), and parsing rejects others.
///
/// The forwarding path parses, reads and rewrites in the received buffer, allocating nothing:
///
/// ```swift
/// let (header, payload) = try RTPHeader.parse(UnsafeRawBufferPointer(packet))
/// let rid = try header.extensionValue(RTPIdentifierExtension.self, id: ridID, in: UnsafeRawBufferPointer(packet))
/// try RTPHeader.rewrite(sequenceNumber: seq, timestamp: ts, ssrc: ssrc, in: packet)
/// try header.rewriteExtension(id: twccID, with: RTPTransportSequenceNumber(value: n), in: packet)
/// ```
public struct RTPHeader: Hashable, Sendable {
    /// The only version RFC 3550 defines.
    public static let version: UInt8 = 2
    /// Bytes of the fixed header before the CSRC list.
    public static let fixedSize = 12
    /// Bytes of the extension header (profile + length) when X is set (RFC 3550 §5.3.1).
    public static let extensionHeaderSize = 4

    /// P: the packet ends with padding whose last octet counts it (RFC 3550 §5.1).
    public var padding: Bool
    /// M: profile-defined; for video the last packet of a frame (RFC 3551 §4.1).
    public var marker: Bool
    /// PT: 7 bits; serialization keeps the low 7 bits.
    public var payloadType: UInt8
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var ssrc: UInt32
    /// CC and the CSRC list.
    public var csrcs: RTPCSRCList
    /// The 16-bit "defined by profile" field; `nil` means X = 0 (no extension).
    public var extensionProfile: UInt16?
    /// Bytes of extension data after the 4-byte extension header (4 × the length field).
    public var extensionLength: Int

    /// - Parameters:
    ///   - extensionProfile: `nil` for no extension; `RTPExtensionForm.oneByte.profile` for RFC 8285.
    ///   - extensionLength: extension data bytes, a multiple of 4.
    public init(
        padding: Bool = false, marker: Bool = false, payloadType: UInt8, sequenceNumber: UInt16,
        timestamp: UInt32, ssrc: UInt32, csrcs: RTPCSRCList = [], extensionProfile: UInt16? = nil,
        extensionLength: Int = 0
    ) {
        self.padding = padding
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcs = csrcs
        self.extensionProfile = extensionProfile
        self.extensionLength = extensionLength
    }

    /// X: whether a header extension follows the CSRC list.
    public var hasExtension: Bool { extensionProfile != nil }

    /// Offset of the extension header (profile, length) — also the end of the CSRC list.
    public var extensionHeaderOffset: Int { Self.fixedSize + 4 * csrcs.count }

    /// Where the extension data sits in the parsed buffer (empty, at the payload start, without X).
    public var extensionRange: Range<Int> {
        guard hasExtension else { return extensionHeaderOffset..<extensionHeaderOffset }
        let start = extensionHeaderOffset + Self.extensionHeaderSize
        return start..<(start + extensionLength)
    }

    /// The header's size on the wire, which is also the payload's offset.
    public var marshalSize: Int {
        guard hasExtension else { return extensionHeaderOffset }
        return extensionHeaderOffset + Self.extensionHeaderSize + Self.roundedToWords(extensionLength)
    }

    /// `count` rounded up to a multiple of 4 (RTP and RTCP lengths count 32-bit words).
    static func roundedToWords(_ count: Int) -> Int {
        (max(count, 0) + 3) & ~3
    }
}

/// Bit positions of the first two header octets (RFC 3550 §5.1), named rather than bitfields.
@usableFromInline
enum RTPHeaderBits {
    static let versionShift: UInt8 = 6
    static let paddingMask: UInt8 = 0x20
    @usableFromInline static let extensionMask: UInt8 = 0x10
    static let csrcCountMask: UInt8 = 0x0F
    static let markerMask: UInt8 = 0x80
    static let payloadTypeMask: UInt8 = 0x7F
}
