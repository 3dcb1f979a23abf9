internal import CMediaShims
internal import CVPX

/// A realtime VP8 encoder over libvpx (`vpx_codec_vp8_cx`), configured as WebRTC does:
/// one-pass CBR, `g_lag_in_frames = 0`, `VPX_ERROR_RESILIENT_DEFAULT`, `VPX_DL_REALTIME`,
/// one thread, noise sensitivity off, `VP8E_SET_CPUUSED` from the configuration.
///
/// With `temporalLayers` 2 or 3 it codes libwebrtc's L1T2/L1T3 pattern (`VP8TemporalPattern`):
/// libvpx's per-layer rate control (`ts_*`), and per frame `VP8E_SET_TEMPORAL_LAYER_ID` and the
/// reference/update flags; each frame comes out tagged with its TID, Y and N (RFC 7741 §4.2).
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
    /// Capture time left out of the pts: what gaps beyond `maxPtsStepFrames` frames skipped.
    private var skippedPts: vpx_codec_pts_t = 0
    /// The temporal pattern, `nil` with one layer.
    private let temporalPattern: VP8TemporalPattern?
    /// Index in `temporalPattern` of the next emitted frame; 0 is the keyframe's place.
    private var temporalIndex = 0

    public init(_ configuration: VP8EncoderConfiguration) throws(MediaCodecError) {
        try configuration.validate()
        self.configuration = configuration
        temporalPattern = VP8TemporalPattern(layerCount: configuration.temporalLayers)
        var cfg = vpx_codec_enc_cfg_t()
        let defaultsResult = ms_vp8_enc_config_default(&cfg)
        guard defaultsResult == VPX_CODEC_OK else { throw .vpx("vpx_codec_enc_config_default", defaultsResult) }
        Self.apply(configuration, to: &cfg)
        if let temporalPattern { Self.apply(temporalPattern, bitrateBps: configuration.bitrateBps, to: &cfg) }
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
        var flags: vpx_enc_frame_flags_t = forceKeyframe ? vpx_enc_frame_flags_t(VPX_EFLAG_FORCE_KF) : 0
        var planned: VP8TemporalFrame?
        if let temporalPattern {
            if forceKeyframe { temporalIndex = 0 }
            // A forced keyframe takes only VPX_EFLAG_FORCE_KF, as in libwebrtc: it refreshes every buffer.
            let frame = forceKeyframe ? VP8TemporalFrame.keyframe : temporalPattern.frame(at: temporalIndex)
            try control(VP8E_SET_TEMPORAL_LAYER_ID, Int(frame.layerID), "VP8E_SET_TEMPORAL_LAYER_ID")
            if !forceKeyframe { flags |= Self.flags(for: frame) }
            planned = frame
        }

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
        return drainPackets(captureTimeMicros: frame.captureTimeMicros).map { tagged($0, planned: planned) }
    }

    /// Changes the target bitrate at runtime (`vpx_codec_enc_config_set`); takes effect from the
    /// next frame without a keyframe.
    public func setBitrate(_ bps: Int) throws(MediaCodecError) {
        guard bps >= 1000 else { throw .invalidConfiguration("bitrate \(bps) bps is below 1 kbps") }
        var cfg = config
        cfg.rc_target_bitrate = UInt32(clamping: bps / 1000)
        if let temporalPattern { Self.apply(temporalPattern, bitrateBps: bps, to: &cfg) }
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

    /// The frame with its temporal layer information (RFC 7741 §4.2), and the pattern moved on.
    /// Any keyframe — forced, or libvpx's own (`kf_max_dist`, scene cut) — is TL0 and restarts
    /// the pattern; a frame the rate controller drops never gets here, so it does not advance it.
    private func tagged(_ encoded: EncodedVideoFrame, planned: VP8TemporalFrame?) -> EncodedVideoFrame {
        guard let planned else { return encoded }
        let frame = encoded.isKeyframe ? VP8TemporalFrame.keyframe : planned
        temporalIndex = encoded.isKeyframe ? 1 : temporalIndex + 1
        var encoded = encoded
        encoded.temporalLayerID = frame.layerID
        encoded.layerSync = frame.layerSync
        encoded.nonReferenceFrame = frame.nonReference
        return encoded
    }

    /// With temporal layers, the most nominal frame durations one pts step may span.
    static let maxPtsStepFrames: vpx_codec_pts_t = 3

    /// 90 kHz pts from the capture clock when it advances, else one nominal frame duration on.
    /// libvpx's rate control needs strictly increasing timestamps.
    ///
    /// With temporal layers a longer gap (a mute, a stalled source) counts as
    /// `maxPtsStepFrames` frames: libvpx 1.12's per-layer rate control, told the frame rate
    /// fell to a fraction of a frame per second, drops nearly every frame for seconds after it
    /// (measured: a 2 s gap at 20 fps, 35 of the next 38 frames dropped; none with the cap).
    private func nextPts(captureMicros: UInt64, duration: vpx_codec_pts_t) -> vpx_codec_pts_t {
        let first = firstCaptureMicros ?? captureMicros
        firstCaptureMicros = first
        var pts = lastPts + duration
        if captureMicros >= first {
            var fromClock = vpx_codec_pts_t(clamping: (captureMicros - first) * 9 / 100) - skippedPts
            let longest = lastPts + Self.maxPtsStepFrames * duration
            if temporalPattern != nil, lastPts >= 0, fromClock > longest {
                skippedPts += fromClock - longest
                fromClock = longest
            }
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

    /// Temporal scalability as `vpx_temporal_svc_encoder.c` sets it up: layer count, cumulative
    /// kbps per layer, frame-rate decimators, and the layer of each frame in one period.
    private static func apply(_ pattern: VP8TemporalPattern, bitrateBps: Int, to cfg: inout vpx_codec_enc_cfg_t) {
        cfg.ts_number_layers = UInt32(pattern.layerCount)
        let kbps = pattern.cumulativeKbps(total: bitrateBps / 1000)
        withUnsafeMutableBytes(of: &cfg.ts_target_bitrate) { write(kbps, to: $0) }
        withUnsafeMutableBytes(of: &cfg.ts_rate_decimator) { write(pattern.rateDecimators, to: $0) }
        cfg.ts_periodicity = UInt32(pattern.frames.count)
        withUnsafeMutableBytes(of: &cfg.ts_layer_id) { write(pattern.layerIDs, to: $0) }
    }

    /// Fills a C `unsigned int[N]` (imported as a tuple) with `values`, zeros after them.
    private static func write(_ values: [Int], to buffer: UnsafeMutableRawBufferPointer) {
        let slots = buffer.bindMemory(to: UInt32.self)
        for index in slots.indices { slots[index] = index < values.count ? UInt32(clamping: values[index]) : 0 }
    }

    /// The `vpx_codec_encode` flags of one pattern frame: what it must not reference or update.
    /// Frames above TL0 also leave the entropy context alone (`VP8_EFLAG_NO_UPD_ENTROPY`), so
    /// dropping them does not change how the next TL0 frame decodes.
    private static func flags(for frame: VP8TemporalFrame) -> vpx_enc_frame_flags_t {
        var flags: Int = 0
        if !frame.references.contains(.last) { flags |= Int(VP8_EFLAG_NO_REF_LAST) }
        if !frame.references.contains(.golden) { flags |= Int(VP8_EFLAG_NO_REF_GF) }
        if !frame.references.contains(.altref) { flags |= Int(VP8_EFLAG_NO_REF_ARF) }
        if !frame.updates.contains(.last) { flags |= Int(VP8_EFLAG_NO_UPD_LAST) }
        if !frame.updates.contains(.golden) { flags |= Int(VP8_EFLAG_NO_UPD_GF) }
        if !frame.updates.contains(.altref) { flags |= Int(VP8_EFLAG_NO_UPD_ARF) }
        if frame.layerID > 0 { flags |= Int(VP8_EFLAG_NO_UPD_ENTROPY) }
        return vpx_enc_frame_flags_t(flags)
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
