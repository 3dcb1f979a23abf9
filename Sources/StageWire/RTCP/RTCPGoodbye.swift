/// A Goodbye packet (RFC 3550 §6.6): the sources leaving, optionally with a reason.
///
/// ```
/// |V=2|P|    SC   |   PT=BYE=203  |             length            |
/// |                           SSRC/CSRC                           |
/// :                              ...                              :
/// |     length    |               reason for leaving            ... (opt)
/// ```
public struct RTCPGoodbye: RTCPPacketBody {
    public static let packetType = RTCPPacketType.goodbye

    public var sources: [UInt32]
    /// The reason's raw bytes (UTF-8 text per RFC 3550 §6.6), or `nil` when absent. Kept raw so
    /// invalid UTF-8 round-trips; see `reasonText`.
    public var reason: [UInt8]?

    public init(sources: [UInt32], reason: [UInt8]? = nil) {
        self.sources = sources
        self.reason = reason
    }

    public init(sources: [UInt32], reasonText: String) {
        self.init(sources: sources, reason: Array(reasonText.utf8))
    }

    /// The reason decoded as UTF-8 (invalid sequences replaced).
    public var reasonText: String? { reason.map { String(decoding: $0, as: UTF8.self) } }

    public var countField: Int { sources.count }
    public var bodySize: Int {
        4 * sources.count + (reason.map { RTPHeader.roundedToWords(1 + $0.count) } ?? 0)
    }

    public init(header: RTCPHeader, body: UnsafeRawBufferPointer) throws(RTCPError) {
        var reader = RTPByteReader(body)
        var sources: [UInt32] = []
        sources.reserveCapacity(Int(header.count))
        for _ in 0..<header.count {
            guard let source = reader.readUInt32() else {
                throw .packetTooShort(type: Self.packetType, needed: 4 * Int(header.count), got: body.count)
            }
            sources.append(source)
        }
        var reason: [UInt8]?
        if let length = reader.readUInt8() {
            guard let bytes = reader.readBytes(Int(length)) else { throw .goodbyeReasonTruncated }
            reason = bytes
        }
        self.init(sources: sources, reason: reason)
    }

    public func serializeBody(into out: inout [UInt8]) throws(RTCPError) {
        for source in sources { out.appendBigEndian(source) }
        guard let reason else { return }
        guard reason.count <= 255 else { throw .valueTooLong(reason.count) }
        out.appendBigEndian(UInt8(reason.count))
        out.append(contentsOf: reason)
        out.appendWireZeros(RTPHeader.roundedToWords(1 + reason.count) - 1 - reason.count)
    }
}
