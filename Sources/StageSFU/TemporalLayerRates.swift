/// One step a stream allocator may choose for a video track: a simulcast layer, and within it
/// the highest VP8 temporal layer to forward (nil: all of them).
public struct LayerStep: Sendable, Equatable {
    public var layer: Int
    public var temporalLayer: Int?
    /// What forwarding it costs, bits per second.
    public var bitrate: Int
    /// Orders steps and stays the same whichever steps are on offer (`StreamAllocator.Track.ranks`).
    public var rank: Int { layer * 4 + (temporalLayer ?? 3) }

    public init(layer: Int, temporalLayer: Int? = nil, bitrate: Int) {
        self.layer = layer
        self.temporalLayer = temporalLayer
        self.bitrate = bitrate
    }
}

/// How each simulcast layer's bytes split over its VP8 temporal layers (the TID of RFC 7741
/// §4.2), measured from what arrives, and the finer steps that split offers an allocator.
///
/// With three temporal layers (L1T3, as Chrome and the SDK publish) temporal layer 0 is a
/// quarter of the frames, 0–1 half, 0–2 all; with two, 0 is half. Steps: every temporal layer
/// of the lowest flowing simulcast layer — a link narrower than it still gets a picture, at a
/// lower frame rate, instead of an overflowing stream that freezes — and the layers above it
/// whole. Frame rate goes last, as a camera's "maintain frame rate" degradation (libwebrtc's
/// default for cameras) has it: a 640 px picture at half the frames in place of 320 px at all
/// of them was offered once, and where the two cost the same (this project's test pattern)
/// every narrow subscriber took it.
public struct TemporalLayerRates: Sendable {
    /// Temporal layer ids go up to 3 (two bits: RFC 7741 §4.2).
    static let temporalLayerCount = 4
    /// Bytes per simulcast layer and temporal layer since the last `measure`.
    private var bytes: [[Int]]
    /// Per simulcast layer: the cumulative share of its bytes in temporal layers 0…t, one per
    /// temporal layer seen in the last measurement; empty with fewer than two.
    public private(set) var shares: [[Double]]

    public init(layers: Int) {
        bytes = Array(repeating: Array(repeating: 0, count: Self.temporalLayerCount), count: max(1, layers))
        shares = Array(repeating: [], count: max(1, layers))
    }

    /// `count` bytes of simulcast layer `layer` arrived in temporal layer `temporalLayer`.
    public mutating func record(layer: Int, temporalLayer: UInt8, count: Int) {
        guard bytes.indices.contains(layer) else { return }
        bytes[layer][Int(temporalLayer) & 3] += count
    }

    /// Turns the bytes since the last call into shares (call with the producer's rate measurement).
    public mutating func measure() {
        for layer in bytes.indices {
            let perLayer = bytes[layer]
            bytes[layer] = Array(repeating: 0, count: Self.temporalLayerCount)
            let total = perLayer.reduce(0, +)
            guard let highest = perLayer.lastIndex(where: { $0 > 0 }), highest > 0, total > 0 else {
                shares[layer] = []
                continue
            }
            var sum = 0
            shares[layer] = perLayer[...highest].map { count in
                sum += count
                return Double(sum) / Double(total)
            }
        }
    }

    /// The steps on offer for the simulcast layers' `costs` (`Producer.allocatableBitrates`,
    /// which never falls from one layer on offer to the next), lowest first; a layer that costs
    /// 0 (not on offer) is one step of 0.
    public func steps(costs: [Int]) -> [LayerStep] {
        let lowest = costs.firstIndex(where: { $0 > 0 })
        var steps: [LayerStep] = []
        for (layer, cost) in costs.enumerated() {
            let split = layer == lowest && shares.indices.contains(layer) ? shares[layer] : []
            guard split.count > 1 else {
                steps.append(LayerStep(layer: layer, bitrate: cost))
                continue
            }
            for (temporal, share) in split.enumerated() {
                let top = temporal == split.count - 1
                steps.append(LayerStep(layer: layer, temporalLayer: top ? nil : temporal, bitrate: top ? cost : Int(Double(cost) * share)))
            }
        }
        return steps
    }
}
