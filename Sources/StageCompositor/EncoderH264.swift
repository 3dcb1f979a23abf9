internal import CAV
internal import CYUV
import StageMedia

/// H.264 through libavcodec's libx264 wrapper, set up for low-latency HLS:
/// `tune=zerolatency` (no lookahead, no frame threading: each picture in gives its packet out
/// at once), no B-frames (decode order = presentation order, so a part can end at any frame),
/// CBR-like rate control (`bit_rate` = `rc_max_rate`, a half-second VBV), GOP = one segment,
/// `scenecut=0` so x264 places no keyframes of its own, and `forced-idr=1` so a picture sent
/// with `AV_PICTURE_TYPE_I` becomes an IDR (closed GOP) — every segment starts with one.
///
/// SPS/PPS go in the `avcC` of the init segment (`AV_CODEC_FLAG_GLOBAL_HEADER`), as
/// ISO/IEC 14496-15 `avc1` and ISO/IEC 23000-19 (CMAF) §A.2 expect.
final class H264Encoder {
    let width: Int
    let height: Int
    let framerate: Int
    let codec: EncoderCodecContext

    init(_ configuration: RenditionConfiguration) throws(AVError) {
        width = configuration.width
        height = configuration.height
        framerate = configuration.framerate
        codec = try EncoderCodecContext(encoderNamed: "libx264") { (context) throws(AVError) in
            let c = configuration
            context.pointee.width = Int32(c.width)
            context.pointee.height = Int32(c.height)
            context.pointee.pix_fmt = AV_PIX_FMT_YUV420P
            context.pointee.time_base = AVRational(num: 1, den: Int32(c.framerate))
            context.pointee.framerate = AVRational(num: Int32(c.framerate), den: 1)
            context.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
            context.pointee.gop_size = Int32(c.framesPerSegment)
            context.pointee.max_b_frames = 0
            context.pointee.bit_rate = Int64(c.videoBitrate)
            context.pointee.rc_max_rate = Int64(c.videoBitrate)
            context.pointee.rc_buffer_size = Int32(c.videoBitrate / 2)
            context.pointee.thread_count = Int32(c.threads)
            context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
            // Limited-range BT.709, as HD players assume; tagged so every rendition of the
            // canvas is shown the same way.
            context.pointee.color_range = AVCOL_RANGE_MPEG
            context.pointee.colorspace = AVCOL_SPC_BT709
            context.pointee.color_primaries = AVCOL_PRI_BT709
            context.pointee.color_trc = AVCOL_TRC_BT709
            try EncoderCodecContext.setOption(context, "preset", c.preset)
            try EncoderCodecContext.setOption(context, "tune", "zerolatency")
            try EncoderCodecContext.setOption(context, "profile", c.profile.rawValue)
            try EncoderCodecContext.setOption(context, "forced-idr", "1")
            try EncoderCodecContext.setOption(context, "x264-params", "scenecut=0:open-gop=0")
        }
        let frame = codec.frame
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        frame.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        frame.pointee.color_range = AVCOL_RANGE_MPEG
        try AVError.check(av_frame_get_buffer(frame, 0), "av_frame_get_buffer(video)")
    }

    /// The codec parameters for the muxer's stream (`avcC` included).
    var context: UnsafeMutablePointer<AVCodecContext> { codec.context }

    /// Encodes picture number `index` (pts = `index` in 1/framerate), as an IDR when
    /// `keyframe`, and hands the resulting packets (one, under zerolatency) to `handler`.
    @discardableResult
    func encode(_ picture: EncoderPicture, index: Int, keyframe: Bool,
                handler: (UnsafeMutablePointer<AVPacket>) throws(AVError) -> Void) throws(AVError) -> Int {
        guard picture.width == width, picture.height == height else {
            throw .frameSizeMismatch(expectedWidth: width, expectedHeight: height,
                                     width: picture.width, height: picture.height)
        }
        try codec.makeFrameWritable()
        let frame = codec.frame
        let copied = I420Copy(picture.y, Int32(picture.yStride), picture.u, Int32(picture.uStride),
                              picture.v, Int32(picture.vStride),
                              frame.pointee.data.0, frame.pointee.linesize.0,
                              frame.pointee.data.1, frame.pointee.linesize.1,
                              frame.pointee.data.2, frame.pointee.linesize.2,
                              Int32(width), Int32(height))
        guard copied == 0 else { throw .invalidConfiguration("I420Copy rejected the picture (\(copied))") }
        frame.pointee.pts = Int64(index)
        frame.pointee.pict_type = keyframe ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
        return try codec.send(frame, operation: "libx264", handler: handler)
    }

    /// Drains the encoder at the end of the stream (nothing is left under zerolatency).
    @discardableResult
    func flush(handler: (UnsafeMutablePointer<AVPacket>) throws(AVError) -> Void) throws(AVError) -> Int {
        try codec.send(nil, operation: "libx264 flush", handler: handler)
    }
}

@available(*, unavailable, message: "owns a libx264 encoder; use from one task or actor")
extension H264Encoder: Sendable {}
