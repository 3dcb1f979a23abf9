/// One compressed VP8 frame as libvpx emits it (`VPX_CODEC_CX_FRAME_PKT`): the bytes an RTP
/// packetizer splits per RFC 7741.
public struct EncodedVideoFrame: Sendable, Equatable {
    /// The VP8 bitstream of one frame (RFC 6386 §9: frame tag, then partitions).
    public var data: [UInt8]
    /// Whether this frame is a keyframe (decodable on its own; `VPX_FRAME_IS_KEY`).
    public var isKeyframe: Bool
    public var width: Int
    public var height: Int
    /// Capture time of the source picture, copied from the `VideoFrame` that produced it.
    public var captureTimeMicros: UInt64

    public init(data: [UInt8], isKeyframe: Bool, width: Int, height: Int, captureTimeMicros: UInt64) {
        self.data = data
        self.isKeyframe = isKeyframe
        self.width = width
        self.height = height
        self.captureTimeMicros = captureTimeMicros
    }
}
