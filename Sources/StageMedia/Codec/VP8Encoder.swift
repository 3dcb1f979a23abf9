internal import CMediaShims
internal import CVPX

/// A realtime VP8 encoder over libvpx (`vpx_codec_vp8_cx`), configured as WebRTC does:
/// one-pass CBR, `g_lag_in_frames = 0`, `VPX_ERROR_RESILIENT_DEFAULT`, `VPX_DL_REALTIME`,
/// one thread, noise sensitivity off, `VP8E_SET_CPUUSED` from the configuration.
///
/// Not thread-safe: use one encoder from one task or actor. It owns the libvpx context and
/// frees it in `deinit`.
public final class VP8Encoder {
    public private(set) var configuration: VP8EncoderConfiguration
    private let context: UnsafeMutablePointer<vpx_codec_ctx_t>
    private var config: vpx_codec_enc_cfg_t
    /// Presentation timestamps in the 90 kHz timebase (`g_timebase = 1/90000`, as RTP video).
    private var firstCaptureMicros: UInt64?
    private var lastPts: vpx_codec_pts_t = -1

    public init(_ configuration: VP8EncoderConfiguration) throws(MediaCodecError) {
        try configuration.validate()
        self.configuration = configuration
        var cfg = vpx_codec_enc_cfg_t()
        let defaultsResult = ms_vp8_enc_config_default(&cfg)
        guard defaultsResult == VPX_CODEC_OK else { throw .vpx("vpx_codec_enc_config_default", defaultsResult) }
        Self.apply(configuration, to: &cfg)
        self.config = cfg

        context = .allocate(capacity: 1)
        context.initialize(to: vpx_codec_ctx_t())
        let initResult = ms_vp8_enc_init(context, &cfg)
        guard initResult == VPX_CODEC_OK else {
            let error = MediaCodecError.vpx("vpx_codec_enc_init", initResult, context)
            context.deallocate()
            throw error
        }
        do {
            try control(VP8E_SET_CPUUSED, configuration.cpuUsed, "VP8E_SET_CPUUSED")
            try control(VP8E_SET_NOISE_SENSITIVITY, 0, "VP8E_SET_NOISE_SENSITIVITY")
            // WebRTC: skip encoding of static blocks below this threshold.
            try control(VP8E_SET_STATIC_THRESHOLD, 1, "VP8E_SET_STATIC_THRESHOLD")
            try control(VP8E_SET_TOKEN_PARTITIONS, Int(VP8_ONE_TOKENPARTITION.rawValue), "VP8E_SET_TOKEN_PARTITIONS")
            try control(VP8E_SET_MAX_INTRA_BITRATE_PCT, Self.maxIntraBitratePercent(cfg, configuration.framerate),
                        "VP8E_SET_MAX_INTRA_BITRATE_PCT")
        } catch {
            vpx_codec_destroy(context)
            context.deallocate()
            throw error
        }
    }

    deinit {
        vpx_codec_destroy(context)
        context.deallocate()
    }

    /// Encodes one picture and returns every compressed frame libvpx emits for it: usually one,
    /// none when the rate controller drops the frame.
    /// - Parameters:
    ///   - frame: an I420 picture of exactly the configured size.
    ///   - forceKeyframe: emit a keyframe (`VPX_EFLAG_FORCE_KF`), e.g. after a PLI/FIR.
    public func encode(_ frame: VideoFrame, forceKeyframe: Bool = false) throws(MediaCodecError) -> [EncodedVideoFrame] {
        guard frame.width == configuration.width, frame.height == configuration.height else {
            throw .frameSizeMismatch(expectedWidth: configuration.width, expectedHeight: configuration.height,
                                     width: frame.width, height: frame.height)
        }
        let duration = UInt(90_000 / configuration.framerate)
        let pts = nextPts(captureMicros: frame.captureTimeMicros, duration: vpx_codec_pts_t(duration))
        let flags: vpx_enc_frame_flags_t = forceKeyframe ? vpx_enc_frame_flags_t(VPX_EFLAG_FORCE_KF) : 0

        var image = vpx_image_t()
        let result = frame.y.withUnsafeBufferPointer { y in
            frame.u.withUnsafeBufferPointer { u in
                frame.v.withUnsafeBufferPointer { v in
                    // libvpx only reads the source; it copies it into its lookahead buffer.
                    ms_vpx_img_wrap_i420(&image, UInt32(frame.width), UInt32(frame.height),
                                         UnsafeMutablePointer(mutating: y.baseAddress), Int32(frame.width),
                                         UnsafeMutablePointer(mutating: u.baseAddress),
                                         UnsafeMutablePointer(mutating: v.baseAddress), Int32(frame.chromaWidth))
                    return vpx_codec_encode(context, &image, pts, duration, flags, UInt(VPX_DL_REALTIME))
                }
            }
        }
        guard result == VPX_CODEC_OK else { throw .vpx("vpx_codec_encode", result, context) }
        return drainPackets(captureTimeMicros: frame.captureTimeMicros)
    }

    /// Changes the target bitrate at runtime (`vpx_codec_enc_config_set`); takes effect from the
    /// next frame without a keyframe.
    public func setBitrate(_ bps: Int) throws(MediaCodecError) {
        guard bps >= 1000 else { throw .invalidConfiguration("bitrate \(bps) bps is below 1 kbps") }
        var cfg = config
        cfg.rc_target_bitrate = UInt32(clamping: bps / 1000)
        let result = vpx_codec_enc_config_set(context, &cfg)
        guard result == VPX_CODEC_OK else { throw .vpx("vpx_codec_enc_config_set", result, context) }
        config = cfg
        configuration.bitrateBps = bps
    }

    // MARK: - Internals

    private func drainPackets(captureTimeMicros: UInt64) -> [EncodedVideoFrame] {
        var frames: [EncodedVideoFrame] = []
        var iterator: vpx_codec_iter_t? = nil
        while let packet = vpx_codec_get_cx_data(context, &iterator) {
            var buffer: UnsafePointer<UInt8>? = nil
            var size = 0
            var isKey: Int32 = 0
            guard ms_vpx_packet_frame(packet, &buffer, &size, &isKey) != 0, let buffer, size > 0 else { continue }
            frames.append(EncodedVideoFrame(
                data: Array(UnsafeBufferPointer(start: buffer, count: size)),
                isKeyframe: isKey != 0, width: configuration.width, height: configuration.height,
                captureTimeMicros: captureTimeMicros))
        }
        return frames
    }

    /// 90 kHz pts from the capture clock when it advances, else one nominal frame duration on.
    /// libvpx's rate control needs strictly increasing timestamps.
    private func nextPts(captureMicros: UInt64, duration: vpx_codec_pts_t) -> vpx_codec_pts_t {
        let first = firstCaptureMicros ?? captureMicros
        firstCaptureMicros = first
        var pts = lastPts + duration
        if captureMicros >= first {
            let fromClock = vpx_codec_pts_t(clamping: (captureMicros - first) * 9 / 100)
            if fromClock > lastPts { pts = fromClock }
        }
        lastPts = pts
        return pts
    }

    private func control(_ id: vp8e_enc_control_id, _ value: Int, _ name: String) throws(MediaCodecError) {
        let result = ms_vpx_control_int(context, Int32(id.rawValue), Int32(value))
        guard result == VPX_CODEC_OK else { throw .vpx(name, result, context) }
    }

    private static func apply(_ c: VP8EncoderConfiguration, to cfg: inout vpx_codec_enc_cfg_t) {
        cfg.g_w = UInt32(c.width)
        cfg.g_h = UInt32(c.height)
        cfg.g_threads = 1
        cfg.g_timebase = vpx_rational(num: 1, den: 90_000)
        cfg.g_lag_in_frames = 0
        cfg.g_error_resilient = vpx_codec_er_flags_t(VPX_ERROR_RESILIENT_DEFAULT)
        cfg.g_pass = VPX_RC_ONE_PASS
        cfg.rc_end_usage = VPX_CBR
        cfg.rc_target_bitrate = UInt32(clamping: c.bitrateBps / 1000)
        cfg.rc_min_quantizer = UInt32(c.minQuantizer)
        cfg.rc_max_quantizer = UInt32(c.maxQuantizer)
        cfg.rc_dropframe_thresh = c.frameDroppingEnabled ? 30 : 0
        cfg.rc_resize_allowed = 0  // output size must stay the configured size
        cfg.rc_undershoot_pct = 100
        cfg.rc_overshoot_pct = 15
        cfg.rc_buf_initial_sz = 500
        cfg.rc_buf_optimal_sz = 600
        cfg.rc_buf_sz = 1000
        cfg.kf_mode = VPX_KF_AUTO
        cfg.kf_min_dist = 0
        cfg.kf_max_dist = UInt32(c.keyframeIntervalFrames)
    }

    /// WebRTC's `MaxIntraTarget`: cap a keyframe at half the optimal buffer (ms) worth of frames,
    /// as a percentage of the per-frame budget, at least 300 %.
    private static func maxIntraBitratePercent(_ cfg: vpx_codec_enc_cfg_t, _ framerate: Int) -> Int {
        let target = Double(cfg.rc_buf_optimal_sz) * 0.5 * Double(framerate) / 10
        return max(300, Int(target))
    }
}

@available(*, unavailable, message: "owns a libvpx context; use from one task or actor")
extension VP8Encoder: Sendable {}
