/// One whole VP8 frame put back together from its RTP packets, ready for the decoder.
public struct ReceivedVP8Frame: Hashable, Sendable {
    /// The frame as the sender's encoder produced it (descriptors stripped).
    public var data: [UInt8]
    /// P = 0 in the payload header of the first packet (RFC 7741 §4.3). `false` when the first
    /// packet carries fewer than the header's 3 bytes.
    public var isKeyframe: Bool
    /// The 7- or 15-bit PictureID of the descriptors, `nil` when they carry none.
    public var pictureID: UInt16?
    /// Coded size from the keyframe header (RFC 6386 §9.1); `nil` for delta frames and when the
    /// first packet does not hold the whole keyframe header.
    public var width: Int?
    public var height: Int?
    /// The RTP timestamp shared by the frame's packets (90 kHz).
    public var timestamp: UInt32
    /// The first packet's sequence number.
    public var firstSequenceNumber: UInt16
    /// Packets the frame was carried in.
    public var packetCount: Int

    public init(
        data: [UInt8], isKeyframe: Bool, pictureID: UInt16?, width: Int? = nil, height: Int? = nil, timestamp: UInt32,
        firstSequenceNumber: UInt16, packetCount: Int
    ) {
        self.data = data
        self.isKeyframe = isKeyframe
        self.pictureID = pictureID
        self.width = width
        self.height = height
        self.timestamp = timestamp
        self.firstSequenceNumber = firstSequenceNumber
        self.packetCount = packetCount
    }
}
