/// VP8 simulcast: one `VP8Encoder` per `SimulcastLayer`, each fed a downscaled copy of the source.
///
/// Bandwidth is shared by `allocate(_:over:running:)`: the lowest layer is filled first, then the next
/// one up, so when bandwidth drops the top layers pause first. A paused layer emits nothing and
/// restarts with a keyframe, so an SFU can switch onto it cleanly.
///
/// Not thread-safe; use from one task or actor.
public final class SimulcastEncoder {
    public let width: Int
    public let height: Int
    /// The layers, in the order given (outputs follow this order).
    public let layers: [SimulcastLayer]
    /// Current bitrate per layer (same order as `layers`); 0 means paused.
    public private(set) var layerBitrates: [Int]
    private let encoders: [VP8Encoder]
    private var pendingKeyframes: Set<Int> = []
    /// Layers the receiving side wants (dynacast); a disabled layer is not encoded at all.
    public private(set) var enabled: [Bool]

    /// - Parameters:
    ///   - layers: defaults to `SimulcastLayer.defaults(for:height:)`; pass one layer with
    ///     `scaleDownBy: 1` to encode without simulcast. `rid`s must be unique.
    ///   - framerate, keyframeIntervalFrames, cpuUsed, frameDroppingEnabled, temporalLayers:
    ///     applied to every layer's `VP8EncoderConfiguration` (temporalLayers 3 = L1T3 on each
    ///     simulcast layer, as Chrome sends VP8 simulcast).
    public init(width: Int, height: Int, layers: [SimulcastLayer]? = nil, framerate: Int = 30,
                keyframeIntervalFrames: Int = 3000, cpuUsed: Int = -6,
                frameDroppingEnabled: Bool = true, temporalLayers: Int = 1) throws(MediaCodecError) {
        let layers = layers ?? SimulcastLayer.defaults(for: width, height: height)
        guard !layers.isEmpty else { throw .invalidConfiguration("simulcast needs at least one layer") }
        guard Set(layers.map(\.rid)).count == layers.count else {
            throw .invalidConfiguration("simulcast rids must be unique: \(layers.map(\.rid))")
        }
        self.width = width
        self.height = height
        self.layers = layers
        self.layerBitrates = layers.map(\.maxBitrateBps)
        self.enabled = Array(repeating: true, count: layers.count)
        var encoders: [VP8Encoder] = []
        for layer in layers {
            let size = layer.size(sourceWidth: width, sourceHeight: height)
            encoders.append(try VP8Encoder(VP8EncoderConfiguration(
                width: size.width, height: size.height, bitrateBps: layer.maxBitrateBps, framerate: framerate,
                keyframeIntervalFrames: keyframeIntervalFrames, cpuUsed: cpuUsed,
                frameDroppingEnabled: frameDroppingEnabled, temporalLayers: temporalLayers)))
        }
        self.encoders = encoders
    }

    /// Encodes the source picture on every active layer.
    /// - Parameters:
    ///   - frame: a picture of the configured source size.
    ///   - rids: layers that must emit a keyframe now (e.g. after a PLI for that layer's SSRC).
    public func encode(_ frame: VideoFrame, forceKeyframe rids: Set<String> = []) throws(MediaCodecError)
        -> [(rid: String, frame: EncodedVideoFrame)]
    {
        guard frame.width == width, frame.height == height else {
            throw .frameSizeMismatch(expectedWidth: width, expectedHeight: height, width: frame.width, height: frame.height)
        }
        let running = layers.indices.filter { layerBitrates[$0] > 0 && enabled[$0] }
        let pictures = Self.pictures(of: frame, scales: running.map { layers[$0].scaleDownBy })
        var output: [(rid: String, frame: EncodedVideoFrame)] = []
        for index in running {
            let layer = layers[index]
            guard let picture = pictures[layer.scaleDownBy] else { continue }
            let keyframe = rids.contains(layer.rid) || pendingKeyframes.contains(index)
            let frames = try encoders[index].encode(picture, forceKeyframe: keyframe)
            if keyframe && frames.contains(where: \.isKeyframe) { pendingKeyframes.remove(index) }
            output += frames.map { (layer.rid, $0) }
        }
        return output
    }

    /// Shares `bps` over the layers (see `allocate(_:over:running:)`, with the layers running
    /// now) and applies it; layers that get 0 pause, and resumed layers start with a keyframe.
    public func setTotalBitrate(_ bps: Int) throws(MediaCodecError) {
        let allocation = Self.allocate(bps, over: layers, running: layerBitrates.map { $0 > 0 })
        for (index, rate) in allocation.enumerated() {
            if rate > 0 {
                try encoders[index].setBitrate(rate)
                if layerBitrates[index] == 0, enabled[index] { pendingKeyframes.insert(index) }
            }
        }
        layerBitrates = allocation
    }

    /// The rids currently encoded.
    public var activeRids: [String] {
        layers.indices.filter { layerBitrates[$0] > 0 && enabled[$0] }.map { layers[$0].rid }
    }

    /// Encodes only the layers in `rids` (an SFU's dynacast: what no subscriber receives costs no
    /// CPU), and always the lowest-resolution one, so a new subscriber can start at once. A
    /// layer enabled again starts with a keyframe.
    public func setEnabled(rids: Set<String>) {
        let lowest = layers.indices.max { layers[$0].scaleDownBy < layers[$1].scaleDownBy }
        for index in layers.indices {
            let on = index == lowest || rids.contains(layers[index].rid)
            if on, !enabled[index] { pendingKeyframes.insert(index) }
            enabled[index] = on
        }
    }

    /// A paused layer starts again only when this multiple of its minimum fits: a target that
    /// wavers around a layer's minimum (a congestion controller's sawtooth) does not stop and
    /// start it each time — each start is a keyframe, each stop a subscriber's switch down
    /// (libwebrtc's simulcast hysteresis for realtime video, 1.2).
    public static let restartHysteresis = 1.2

    /// Drop-top-layers-first allocation, in the order of `layers`. From the lowest resolution up,
    /// each layer takes up to its maximum; a layer whose minimum no longer fits is paused (0), and
    /// so is every layer above it; one that is not `running` (paused) needs `restartHysteresis` ×
    /// its minimum to start. The lowest layer always runs, at least at its minimum.
    public static func allocate(_ totalBps: Int, over layers: [SimulcastLayer], running: [Bool]? = nil) -> [Int] {
        let order = layers.indices.sorted { layers[$0].scaleDownBy > layers[$1].scaleDownBy }
        var result = [Int](repeating: 0, count: layers.count)
        var remaining = max(0, totalBps)
        for (rank, index) in order.enumerated() {
            let layer = layers[index]
            let wasRunning = running.map { $0.indices.contains(index) && $0[index] } ?? true
            let needed = wasRunning ? layer.minBitrateBps : Int((Double(layer.minBitrateBps) * restartHysteresis).rounded())
            if rank == 0 {
                result[index] = max(layer.minBitrateBps, min(remaining, layer.maxBitrateBps))
            } else if remaining >= needed {
                result[index] = min(remaining, layer.maxBitrateBps)
            } else {
                break
            }
            remaining -= result[index]
        }
        return result
    }

    /// The source scaled down by each factor, smallest factor first, each derived from the
    /// smallest picture already made whose factor divides it (integer division composes, so ¼
    /// from ½ has the same size as ¼ from full, at a quarter of the work).
    static func pictures(of frame: VideoFrame, scales: [Int]) -> [Int: VideoFrame] {
        var made: [Int: VideoFrame] = [1: frame]
        for factor in Set(scales).sorted() where made[factor] == nil {
            let base = made.keys.filter { factor % $0 == 0 }.max() ?? 1
            let source = made[base] ?? frame
            made[factor] = VideoScaler.scale(source, downBy: factor / base)
        }
        return made
    }
}

@available(*, unavailable, message: "owns libvpx contexts; use from one task or actor")
extension SimulcastEncoder: Sendable {}
