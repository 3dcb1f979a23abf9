/// Settings for a realtime `VP8Encoder`, with defaults taken from WebRTC's
/// `LibvpxVp8Encoder` (one-pass CBR, no lag, error resilient, fast CPU preset).
public struct VP8EncoderConfiguration: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// Target bitrate in bits per second (`rc_target_bitrate`, which libvpx takes in kbps).
    public var bitrateBps: Int
    /// Nominal frame rate; used for frame durations and the keyframe size cap.
    public var framerate: Int
    /// Longest distance between keyframes (`kf_max_dist`, `kf_mode = VPX_KF_AUTO`).
    /// WebRTC uses 3000 and relies on PLI/FIR for recovery.
    public var keyframeIntervalFrames: Int
    /// Speed/quality trade-off (`VP8E_SET_CPUUSED`, −16…16; negative = realtime speed steps).
    /// WebRTC uses −6 on desktop and −12 on weak ARM cores.
    public var cpuUsed: Int
    /// Let the rate controller skip frames when its buffer runs low (`rc_dropframe_thresh = 30`).
    /// A dropped frame makes `encode` return no packets.
    public var frameDroppingEnabled: Bool
    /// Quantizer range, 0…63 (`rc_min_quantizer`/`rc_max_quantizer`; WebRTC: 2…56).
    public var minQuantizer: Int
    public var maxQuantizer: Int
    /// Temporal layers (1, 2 or 3): L1T2 or L1T3 temporal scalability as libwebrtc configures it,
    /// each frame tagged with its layer (`EncodedVideoFrame.temporalLayerID`) so an SFU can drop
    /// the upper layers (RFC 7741 §4.2). 1 = no temporal layers.
    public var temporalLayers: Int

    public init(width: Int, height: Int, bitrateBps: Int, framerate: Int = 30,
                keyframeIntervalFrames: Int = 3000, cpuUsed: Int = -6,
                frameDroppingEnabled: Bool = true, minQuantizer: Int = 2, maxQuantizer: Int = 56,
                temporalLayers: Int = 1) {
        self.width = width
        self.height = height
        self.bitrateBps = bitrateBps
        self.framerate = framerate
        self.keyframeIntervalFrames = keyframeIntervalFrames
        self.cpuUsed = cpuUsed
        self.frameDroppingEnabled = frameDroppingEnabled
        self.minQuantizer = minQuantizer
        self.maxQuantizer = maxQuantizer
        self.temporalLayers = temporalLayers
    }

    /// Throws `MediaCodecError.invalidConfiguration` naming the first bad field.
    func validate() throws(MediaCodecError) {
        // VP8 frame dimensions are 14-bit fields (RFC 6386 §9.2).
        guard (1...16383).contains(width), (1...16383).contains(height) else {
            throw .invalidConfiguration("size \(width)×\(height) is outside VP8's 1…16383")
        }
        guard bitrateBps >= 1000 else { throw .invalidConfiguration("bitrate \(bitrateBps) bps is below 1 kbps") }
        guard (1...240).contains(framerate) else { throw .invalidConfiguration("framerate \(framerate) is outside 1…240") }
        guard keyframeIntervalFrames >= 1 else { throw .invalidConfiguration("keyframe interval must be ≥ 1 frame") }
        guard (-16...16).contains(cpuUsed) else { throw .invalidConfiguration("cpuUsed \(cpuUsed) is outside −16…16") }
        guard (0...63).contains(minQuantizer), (minQuantizer...63).contains(maxQuantizer) else {
            throw .invalidConfiguration("quantizer range \(minQuantizer)…\(maxQuantizer) is outside 0…63")
        }
        guard VP8TemporalPattern.supportedLayerCounts.contains(temporalLayers) else {
            throw .invalidConfiguration("temporalLayers \(temporalLayers) must be 1, 2 or 3")
        }
    }
}
