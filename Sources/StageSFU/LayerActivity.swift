/// Which simulcast layers a publisher should send (dynacast, as LiveKit calls it): a layer some
/// consumer forwards, is switching to, or would take if it flowed is enabled at once; one that
/// nobody has wanted for `pauseAfter` is paused, so the publisher stops encoding it. The lowest
/// layer is never paused: a new subscriber starts on it at once, and it costs a sixteenth of
/// the top layer's pixels. Layers are indexed lowest first, like `Producer.layers`.
public struct LayerActivity: Sendable, Equatable {
    /// How long a layer stays enabled after its last consumer stopped wanting it (a subscriber
    /// pushed down for a moment should not cost the publisher a keyframe to come back).
    public static let pauseAfter: Duration = .seconds(3)

    /// The layers the publisher should send now. All of them to begin with: what a publisher
    /// sends before it is told anything.
    public private(set) var enabled: [Bool]
    private var unwantedSince: [PacketTime?]

    public init(layerCount: Int) {
        enabled = Array(repeating: true, count: layerCount)
        unwantedSince = Array(repeating: nil, count: layerCount)
    }

    /// Weighs which layers are wanted now (`Producer.layersInUse()`).
    /// - Returns: the new `enabled` when it changed, nil when it did not.
    public mutating func update(wanted: [Bool], now: PacketTime) -> [Bool]? {
        var next = enabled
        for index in enabled.indices {
            if index == 0 || (wanted.indices.contains(index) && wanted[index]) {
                unwantedSince[index] = nil
                next[index] = true
            } else {
                let since = unwantedSince[index] ?? now
                unwantedSince[index] = since
                if now - since >= Self.pauseAfter { next[index] = false }
            }
        }
        guard next != enabled else { return nil }
        enabled = next
        return next
    }
}
