/// Receiver Estimated Maximum Bitrate (draft-alvestrand-rmcat-remb-03 §2.2): a PSFB application
/// layer feedback (FMT 15) tagged "REMB", carrying one bitrate for a list of media SSRCs.
///
/// ```
/// |V=2|P| FMT=15  |   PT=206      |             length            |
/// |                  SSRC of packet sender                        |
/// |                  SSRC of media source (0)                     |
/// |  Unique identifier 'R' 'E' 'M' 'B'                            |
/// |  Num SSRC     | BR Exp    |  BR Mantissa                      |
/// |   SSRC feedback                                               |  (Num SSRC times)
/// ```
///
/// The bitrate is mantissa (18 bits) × 2^exp (6 bits) bits per second. Writing picks the
/// smallest exponent whose mantissa fits, rounding the bitrate down to what the field holds.
public struct RTCPReceiverEstimatedMaxBitrate: RTCPPacketBody {
    public static let packetType = RTCPPacketType.payloadFeedback
    public static let feedbackFormat: UInt8? = RTCPFeedbackFormat.applicationLayer
    /// "REMB" in ASCII.
    public static let identifier: UInt32 = 0x5245_4D42
    static let mantissaMax: UInt64 = 0x3FFFF
    /// Bytes of SSRCs, identifier and the Num SSRC / exp / mantissa word.
    static let fixedBodySize = 16

    public var senderSSRC: UInt32
    /// Bits per second.
    public var bitrate: UInt64
    /// The media sources the estimate applies to (at most 255).
    public var ssrcs: [UInt32]

    public init(senderSSRC: UInt32, bitrate: UInt64, ssrcs: [UInt32]) {
        self.senderSSRC = senderSSRC
        self.bitrate = bitrate
        self.ssrcs = ssrcs
    }

    /// Whether an application-layer feedback body (after the common header) is a REMB.
    static func isREMB(body: UnsafeRawBufferPointer) -> Bool {
        var reader = RTPByteReader(body, offset: RTCPFeedbackSSRCs.size)
        return reader.readUInt32() == identifier
    }

    public var countField: Int { Int(RTCPFeedbackFormat.applicationLayer) }
    public var bodySize: Int { Self.fixedBodySize + 4 * ssrcs.count }

    /// - Throws: `RTCPError.rembIdentifierMissing` without "REMB", `.packetTooShort` under 16 bytes, `.rembLengthMismatch` when Num SSRC disagrees with the length (libwebrtc's
    ///   check), `.rembBitrateOverflow` when mantissa × 2^exp exceeds 64 bits.
    public init(header: RTCPHeader, body: UnsafeRawBufferPointer) throws(RTCPError) {
        var reader = RTPByteReader(body)
        let ssrcs = try RTCPFeedbackSSRCs(reader: &reader, type: Self.packetType, needed: Self.fixedBodySize)
        guard let identifier = reader.readUInt32(), identifier == Self.identifier else { throw .rembIdentifierMissing }
        guard let word = reader.readUInt32() else {
            throw .packetTooShort(type: Self.packetType, needed: Self.fixedBodySize, got: body.count)
        }
        let count = Int(word >> 24)
        let expected = Self.fixedBodySize + 4 * count
        guard body.count == expected else {
            throw .rembLengthMismatch(expected: expected, got: body.count)
        }
        let exponent = UInt8(truncatingIfNeeded: (word >> 18) & 0x3F)
        let mantissa = word & 0x3FFFF
        let bitrate = UInt64(mantissa) << UInt64(exponent)
        guard bitrate >> UInt64(exponent) == UInt64(mantissa) else {
            throw .rembBitrateOverflow(mantissa: mantissa, exponent: exponent)
        }
        var list: [UInt32] = []
        list.reserveCapacity(count)
        for _ in 0..<count {
            guard let ssrc = reader.readUInt32() else { throw .rembLengthMismatch(expected: expected, got: body.count) }
            list.append(ssrc)
        }
        self.init(senderSSRC: ssrcs.sender, bitrate: bitrate, ssrcs: list)
    }

    public func serializeBody(into out: inout [UInt8]) throws(RTCPError) {
        guard ssrcs.count <= 255 else { throw .countTooLarge(ssrcs.count) }
        var mantissa = bitrate
        var exponent: UInt32 = 0
        while mantissa > Self.mantissaMax {
            mantissa >>= 1
            exponent += 1
        }
        out.appendBigEndian(senderSSRC)
        out.appendBigEndian(UInt32(0))
        out.appendBigEndian(Self.identifier)
        out.appendBigEndian(UInt32(ssrcs.count) << 24 | exponent << 18 | UInt32(mantissa))
        for ssrc in ssrcs { out.appendBigEndian(ssrc) }
    }
}
