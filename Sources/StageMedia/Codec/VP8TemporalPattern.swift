/// VP8's three reference buffers (RFC 6386 §9.7): last, golden and alternate (altref).
struct VP8ReferenceBuffers: OptionSet, Sendable, Hashable {
    let rawValue: UInt8
    static let last = VP8ReferenceBuffers(rawValue: 1 << 0)
    static let golden = VP8ReferenceBuffers(rawValue: 1 << 1)
    static let altref = VP8ReferenceBuffers(rawValue: 1 << 2)
    static let all: VP8ReferenceBuffers = [.last, .golden, .altref]
}

/// How one frame of a temporal pattern is coded: its layer, the buffers it predicts from and
/// those it refreshes, and what its RTP payload descriptor says of it (RFC 7741 §4.2).
struct VP8TemporalFrame: Sendable, Hashable {
    /// TID: the temporal layer, 0 = base.
    var layerID: UInt8
    var references: VP8ReferenceBuffers
    var updates: VP8ReferenceBuffers
    /// Y: the frame predicts only from TL0 frames, so a receiver can switch up to its layer here.
    var layerSync: Bool
    /// N: no frame references it; it can be discarded (updates nothing).
    var nonReference: Bool { updates.isEmpty }

    /// A keyframe: TL0, refreshes every buffer, needs no sync bit.
    static let keyframe = VP8TemporalFrame(layerID: 0, references: [], updates: .all, layerSync: false)
}

/// The VP8 temporal layer patterns the SDK codes (the reference structure of libvpx's
/// `vpx_temporal_svc_encoder.c` modes, the rate split of libwebrtc's `DefaultTemporalLayers`):
///
/// - L1T2, period 2: TL0 (ref last, update last), TL1 (ref last, update nothing; Y, N).
/// - L1T3, period 4: TL0 (ref last, update last), TL2 (ref last; Y, N), TL1 (ref last, update
///   golden; Y), TL2 (ref last and golden; N).
///
/// Frames that update nothing never change what the lower layers decode from, so an SFU can
/// drop TL2, or TL1 and TL2, and the rest still decodes.
struct VP8TemporalPattern: Sendable, Hashable {
    static let supportedLayerCounts = 1...3

    /// The frames of one period (`ts_periodicity` of them), starting at TL0.
    let frames: [VP8TemporalFrame]
    /// Cumulative share of the target bitrate up to each layer, in percent (libwebrtc's
    /// `kVp8LayerRateAlloction`: 60/100 for two layers, 40/60/100 for three).
    let cumulativeRatePercents: [Int]
    /// Frame-rate divisor of each layer (`ts_rate_decimator`): TL0 runs at 1/4 (three layers)
    /// or 1/2 (two layers) of the frame rate.
    let rateDecimators: [Int]

    var layerCount: Int { rateDecimators.count }
    /// `ts_layer_id`: the layer of each frame in the period.
    var layerIDs: [Int] { frames.map { Int($0.layerID) } }

    /// The pattern for `layerCount` layers, `nil` for one (no temporal scalability) or an
    /// unsupported count.
    init?(layerCount: Int) {
        let base = VP8TemporalFrame(layerID: 0, references: .last, updates: .last, layerSync: false)
        switch layerCount {
        case 2:
            frames = [base, VP8TemporalFrame(layerID: 1, references: .last, updates: [], layerSync: true)]
            cumulativeRatePercents = [60, 100]
            rateDecimators = [2, 1]
        case 3:
            frames = [base,
                      VP8TemporalFrame(layerID: 2, references: .last, updates: [], layerSync: true),
                      VP8TemporalFrame(layerID: 1, references: .last, updates: .golden, layerSync: true),
                      VP8TemporalFrame(layerID: 2, references: [.last, .golden], updates: [], layerSync: false)]
            cumulativeRatePercents = [40, 60, 100]
            rateDecimators = [4, 2, 1]
        default:
            return nil
        }
    }

    /// The frame at `index` emitted frames after the last keyframe (the keyframe is index 0).
    func frame(at index: Int) -> VP8TemporalFrame { frames[index % frames.count] }

    /// `ts_target_bitrate`: cumulative kbps per layer for a total of `totalKbps`, each at least 1.
    func cumulativeKbps(total totalKbps: Int) -> [Int] {
        cumulativeRatePercents.map { max(1, totalKbps * $0 / 100) }
    }
}
