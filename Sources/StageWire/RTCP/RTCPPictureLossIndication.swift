/// A Picture Loss Indication (RFC 4585 §6.3.1): PSFB FMT 1 with no FCI — "decode failed, send a
/// keyframe". The SFU forwards it to the publisher of `mediaSSRC`.
///
/// ```
/// |V=2|P|  FMT=1  |   PT=PSFB=206 |          length=2             |
/// |                  SSRC of packet sender                        |
/// |                  SSRC of media source                         |
/// ```
///
/// Bytes after the two SSRCs are ignored, as libwebrtc does, although RFC 4585 says length 2.
public struct RTCPPictureLossIndication: RTCPPacketBody {
    public static let packetType = RTCPPacketType.payloadFeedback
    public static let feedbackFormat: UInt8? = RTCPFeedbackFormat.pictureLossIndication

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32

    public init(senderSSRC: UInt32, mediaSSRC: UInt32) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
    }

    public var countField: Int { Int(RTCPFeedbackFormat.pictureLossIndication) }
    public var bodySize: Int { RTCPFeedbackSSRCs.size }

    public init(header: RTCPHeader, body: UnsafeRawBufferPointer) throws(RTCPError) {
        var reader = RTPByteReader(body)
        let ssrcs = try RTCPFeedbackSSRCs(reader: &reader, type: Self.packetType, needed: RTCPFeedbackSSRCs.size)
        self.init(senderSSRC: ssrcs.sender, mediaSSRC: ssrcs.media)
    }

    public func serializeBody(into out: inout [UInt8]) throws(RTCPError) {
        out.appendBigEndian(senderSSRC)
        out.appendBigEndian(mediaSSRC)
    }
}
