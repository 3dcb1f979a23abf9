public import StageWire

/// The parts of one received RTP packet that depacketizers, jitter buffers and receiver
/// statistics use: three header fields and the payload, copied out of the datagram
/// (RFC 3550 §5.1). Padding and header extensions are not kept.
public struct ReceivedRTPPacket: Hashable, Sendable {
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    /// M: for video the last packet of a frame (RFC 3551 §4.1, RFC 7741 §4.1); for Opus the
    /// first packet after a silence (RFC 7587 §4.1).
    public var marker: Bool
    /// The RTP payload, padding excluded.
    public var payload: [UInt8]

    public init(sequenceNumber: UInt16, timestamp: UInt32, marker: Bool, payload: [UInt8]) {
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.marker = marker
        self.payload = payload
    }

    /// The fields of a header parsed with `RTPHeader.parse(_:)` and the payload bytes it located.
    public init(header: RTPHeader, payload: some Sequence<UInt8>) {
        self.init(sequenceNumber: header.sequenceNumber, timestamp: header.timestamp, marker: header.marker, payload: Array(payload))
    }

    /// Parses a whole RTP packet (after SRTP decryption) and copies its payload.
    /// - Throws: `RTPError` as `RTPHeader.parse(_:)` does.
    public init(parsing packet: [UInt8]) throws(RTPError) {
        let (header, payload) = try RTPHeader.parse(packet)
        self.init(header: header, payload: packet[payload])
    }
}
