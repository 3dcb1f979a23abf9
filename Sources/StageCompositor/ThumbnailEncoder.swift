internal import CAV
internal import CYUV
public import StageMedia

/// JPEG pictures of the output (recording and channel thumbnails) through libavcodec's `mjpeg`
/// encoder: the I420 picture is scaled down with libyuv's `I420Scale` when the configuration
/// bounds it, stretched from video range to the full range JPEG (JFIF, ITU-T T.871) uses,
/// and encoded as `yuvj420p` at a fixed quantiser scale.
///
/// Not thread-safe: one encoder from one task or actor. It keeps its codec context between
/// pictures of the same size and frees it in `deinit`.
public final class ThumbnailEncoder {
    public let configuration: ThumbnailConfiguration
    private var codec: EncoderCodecContext?
    private var codecSize: (width: Int, height: Int) = (0, 0)
    private var count: Int64 = 0

    public init(configuration: ThumbnailConfiguration = ThumbnailConfiguration()) throws(AVError) {
        try configuration.validate()
        self.configuration = configuration
    }

    /// A JPEG of `frame`.
    public func encode(_ frame: VideoFrame) throws(AVError) -> [UInt8] {
        try frame.withEncoderPicture { (picture) throws(AVError) in try encode(picture: picture) }
    }

    /// A JPEG of `picture` (I420, any size; even sizes scale best).
    public func encode(picture: EncoderPicture) throws(AVError) -> [UInt8] {
        let size = configuration.outputSize(width: picture.width, height: picture.height)
        let codec = try codec(width: size.width, height: size.height)
        try codec.makeFrameWritable()
        let frame = codec.frame
        let result = I420Scale(picture.y, Int32(picture.yStride), picture.u, Int32(picture.uStride),
                               picture.v, Int32(picture.vStride), Int32(picture.width), Int32(picture.height),
                               frame.pointee.data.0, frame.pointee.linesize.0,
                               frame.pointee.data.1, frame.pointee.linesize.1,
                               frame.pointee.data.2, frame.pointee.linesize.2,
                               Int32(size.width), Int32(size.height), kFilterBox)
        guard result == 0 else { throw .invalidConfiguration("I420Scale rejected the picture (\(result))") }
        ThumbnailRange.expand(frame, width: size.width, height: size.height)
        frame.pointee.pts = count
        frame.pointee.quality = Int32(configuration.qscale) * FF_QP2LAMBDA
        count += 1
        var jpeg: [UInt8] = []
        try codec.send(frame, operation: "mjpeg") { (packet) throws(AVError) in
            jpeg = Array(UnsafeBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size)))
        }
        guard !jpeg.isEmpty else { throw .unexpectedMuxerOutput("mjpeg gave no picture") }
        return jpeg
    }

    /// The encoder for `width × height`, reopened when the size changes.
    private func codec(width: Int, height: Int) throws(AVError) -> EncoderCodecContext {
        if let codec, codecSize == (width, height) { return codec }
        codec = nil
        let qscale = configuration.qscale
        let opened = try EncoderCodecContext(encoderNamed: "mjpeg") { (context) throws(AVError) in
            context.pointee.width = Int32(width)
            context.pointee.height = Int32(height)
            context.pointee.pix_fmt = AV_PIX_FMT_YUVJ420P
            context.pointee.color_range = AVCOL_RANGE_JPEG
            context.pointee.time_base = AVRational(num: 1, den: 1)
            context.pointee.flags |= AV_CODEC_FLAG_QSCALE
            context.pointee.global_quality = Int32(qscale) * FF_QP2LAMBDA
        }
        let frame = opened.frame
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        frame.pointee.format = AV_PIX_FMT_YUVJ420P.rawValue
        frame.pointee.color_range = AVCOL_RANGE_JPEG
        try AVError.check(av_frame_get_buffer(frame, 0), "av_frame_get_buffer(thumbnail)")
        codec = opened
        codecSize = (width, height)
        return opened
    }
}

@available(*, unavailable, message: "owns an MJPEG encoder; use from one task or actor")
extension ThumbnailEncoder: Sendable {}
