/// Which simulcast layer a consumer forwards (policy; the munger is the mechanism).
///
/// Layers are indices from lowest (0) to highest quality. The consumer forwards `current`;
/// when the wanted layer differs it sets `target`, asks for a keyframe there, and keeps
/// forwarding `current` until the target's keyframe arrives, so the subscriber never freezes
/// nor gets an undecodable frame — unless the link overflows (`yieldCurrent`). "None" is
/// `nil`, not a sentinel number.
public struct LayerSelector: Sendable, Equatable {
    /// The layer the subscriber asked for; nil means the highest available.
    public var preferred: Int?
    /// The highest layer the subscriber's link carries now (the stream allocator's choice);
    /// nil means no limit. The lower of this and `preferred` is aimed for.
    public var ceiling: Int?
    public private(set) var current: Int?
    public private(set) var target: Int?

    public init(preferred: Int? = nil) { self.preferred = preferred }

    /// The layer to aim for, given which layers are flowing now.
    public func wanted(flowing: [Bool]) -> Int? {
        guard let highest = flowing.lastIndex(of: true) else { return nil }
        let limit: Int? = switch (preferred, ceiling) {
        case let (preferred?, ceiling?): min(preferred, ceiling)
        case let (preferred, ceiling): preferred ?? ceiling
        }
        guard let limit else { return highest }
        // The limit layer if it flows, else the closest below it, else the lowest above.
        let lowest = flowing.firstIndex(of: true)
        guard limit >= 0 else { return lowest }
        return flowing[...min(limit, flowing.count - 1)].lastIndex(of: true) ?? lowest
    }

    /// Stops forwarding the current layer ahead of a switch down: on a link that overflows,
    /// what is still sent of it is mostly lost, and it queues ahead of the lower layer's
    /// keyframe and delays the switch. Nothing is forwarded until that keyframe.
    /// - Returns: whether the current layer was given up (the wanted layer is below it).
    public mutating func yieldCurrent(flowing: [Bool]) -> Bool {
        guard let current, let wanted = wanted(flowing: flowing), wanted < current else { return false }
        self.current = nil
        target = wanted
        return true
    }

    /// Decides for one packet of `layer`. `isKeyframeStart` is evaluated only when needed.
    public mutating func accept(layer: Int, flowing: [Bool], isKeyframeStart: () -> Bool) -> Decision {
        let wanted = self.wanted(flowing: flowing)
        target = wanted == current ? nil : wanted
        if let target, layer == target, isKeyframeStart() {
            current = target
            self.target = nil
            return .forward(switched: true)
        }
        return layer == current ? .forward(switched: false) : .drop(needsKeyframeOn: target)
    }

    public enum Decision: Equatable, Sendable {
        case forward(switched: Bool)
        /// Not this layer; a keyframe is needed on `needsKeyframeOn` to switch.
        case drop(needsKeyframeOn: Int?)
    }
}
