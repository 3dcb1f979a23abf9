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
    /// TID: the frame's temporal layer, 0 = base (RFC 7741 §4.2); `nil` when the encoder runs
    /// without temporal layers.
    public var temporalLayerID: UInt8?
    /// Y (layer sync): the frame depends only on TL0 frames, so a receiver can start taking its
    /// layer here (RFC 7741 §4.2). Meaningful only with a `temporalLayerID`.
    public var layerSync: Bool
    /// N (non-reference frame): no other frame depends on this one; it can be discarded
    /// (RFC 7741 §4.2).
    public var nonReferenceFrame: Bool

    public init(data: [UInt8], isKeyframe: Bool, width: Int, height: Int, captureTimeMicros: UInt64,
                temporalLayerID: UInt8? = nil, layerSync: Bool = false, nonReferenceFrame: Bool = false) {
        self.data = data
        self.isKeyframe = isKeyframe
        self.width = width
        self.height = height
        self.captureTimeMicros = captureTimeMicros
        self.temporalLayerID = temporalLayerID
        self.layerSync = layerSync
        self.nonReferenceFrame = nonReferenceFrame
    }
}
