internal import CMediaShims
internal import CVPX

/// A VP8 decoder over libvpx (`vpx_codec_vp8_dx`), single-threaded.
///
/// Bad input throws, it never traps: libvpx rejects truncated partitions and bad sync codes
/// with `VPX_CODEC_CORRUPT_FRAME`/`VPX_CODEC_UNSUP_BITSTREAM`; pictures libvpx flags through
/// `VP8D_GET_FRAME_CORRUPTED` (a last partition cut short, or prediction from a reference
/// damaged since the last keyframe) are thrown as `MediaCodecError.corruptFrame` until the
/// next keyframe arrives.
///
/// Not thread-safe; owns the libvpx context and frees it in `deinit`.
public final class VP8Decoder {
    /// Largest picture (width × height) a keyframe may announce.
    public let maxPixels: Int
    private let context: UnsafeMutablePointer<vpx_codec_ctx_t>

    /// - Parameter maxPixels: keyframes announcing more pixels are rejected before libvpx
    ///   allocates buffers for them; defaults to 3840 × 2160.
    public init(maxPixels: Int = 3840 * 2160) throws(MediaCodecError) {
        self.maxPixels = maxPixels
        context = .allocate(capacity: 1)
        context.initialize(to: vpx_codec_ctx_t())
        let result = ms_vp8_dec_init(context, 1)
        guard result == VPX_CODEC_OK else {
            let error = MediaCodecError.vpx("vpx_codec_dec_init", result, context)
            context.deallocate()
            throw error
        }
    }

    deinit {
        vpx_codec_destroy(context)
        context.deallocate()
    }

    /// Decodes one VP8 frame.
    /// - Returns: the picture, or `nil` when the frame is not meant to be shown
    ///   (RFC 6386 §9.1 `show_frame = 0`).
    /// - Throws: `MediaCodecError` for empty, truncated or corrupt data, for inter frames before
    ///   the first keyframe, and `.corruptFrame` for pictures libvpx flags corrupt.
    public func decode(_ data: [UInt8], captureTimeMicros: UInt64 = 0) throws(MediaCodecError) -> VideoFrame? {
        guard !data.isEmpty else { throw .emptyPacket }  // an empty call means "flush" to libvpx
        if let size = Self.keyframeSize(data), size.width * size.height > maxPixels {
            throw .frameTooLarge(width: size.width, height: size.height, maxPixels: maxPixels)
        }
        let result = data.withUnsafeBufferPointer { bytes in
            vpx_codec_decode(context, bytes.baseAddress, UInt32(bytes.count), nil, 0)
        }
        guard result == VPX_CODEC_OK else {
            throw .vpx("vpx_codec_decode", result, context)
        }
        var picture: VideoFrame?
        var iterator: vpx_codec_iter_t? = nil
        while let image = vpx_codec_get_frame(context, &iterator) {
            picture = try Self.copy(image.pointee, captureTimeMicros: captureTimeMicros)
        }
        var corrupted: Int32 = 0
        if ms_vp8_dec_get_frame_corrupted(context, &corrupted) == VPX_CODEC_OK, corrupted != 0 {
            throw .corruptFrame
        }
        return picture
    }

    /// Decodes an encoder's output, keeping its capture time on the picture.
    public func decode(_ frame: EncodedVideoFrame) throws(MediaCodecError) -> VideoFrame? {
        try decode(frame.data, captureTimeMicros: frame.captureTimeMicros)
    }

    /// The dimensions a keyframe header announces (RFC 6386 §9.1: tag bit 0 clear, start code
    /// 9d 01 2a, then 14-bit little-endian width and height), or nil for other data.
    static func keyframeSize(_ data: [UInt8]) -> (width: Int, height: Int)? {
        let start = FrameStart(vp8Data: data[...])
        guard let width = start.width, let height = start.height else { return nil }
        return (width, height)
    }

    /// Copies a decoded `vpx_image_t` (padded rows, `stride` ≥ width) into packed planes of the
    /// display size `d_w × d_h`, chroma `(d_w + 1) / 2 × (d_h + 1) / 2`.
    private static func copy(_ image: vpx_image_t, captureTimeMicros: UInt64) throws(MediaCodecError) -> VideoFrame {
        let width = Int(image.d_w), height = Int(image.d_h)
        guard width > 0, height > 0, image.fmt == VPX_IMG_FMT_I420,
              image.x_chroma_shift == 1, image.y_chroma_shift == 1,
              let yPlane = image.planes.0, let uPlane = image.planes.1, let vPlane = image.planes.2
        else {
            throw .vpx(operation: "vpx_codec_get_frame", code: -1,
                       message: "unexpected image format \(image.fmt.rawValue) \(width)×\(height)", detail: nil)
        }
        let (chromaWidth, chromaHeight) = VideoFrame.chromaSize(width: width, height: height)
        return VideoFrame(
            width: width, height: height,
            y: packed(yPlane, stride: Int(image.stride.0), width: width, height: height),
            u: packed(uPlane, stride: Int(image.stride.1), width: chromaWidth, height: chromaHeight),
            v: packed(vPlane, stride: Int(image.stride.2), width: chromaWidth, height: chromaHeight),
            captureTimeMicros: captureTimeMicros)
    }

    private static func packed(_ plane: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: width * height) { out, count in
            for row in 0..<height {
                (out.baseAddress! + row * width).update(from: plane + row * stride, count: width)
            }
            count = width * height
        }
    }
}

@available(*, unavailable, message: "owns a libvpx context; use from one task or actor")
extension VP8Decoder: Sendable {}
