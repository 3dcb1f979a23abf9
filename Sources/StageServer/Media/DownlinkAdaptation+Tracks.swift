import StageSFU

/// What the allocator is given: the subscriber's consumers as tracks, and what they cost.
extension DownlinkAdaptation {
    /// How many of a stream's numbers up to a given one were never sent: what the publisher's
    /// uplink lost reaches the subscriber as gaps, not as loss on its own link.
    static func unsent(_ consumers: [UInt32: Consumer]) -> (_ ssrc: UInt32, _ upTo: UInt16) -> Int {
        { ssrc, highest in consumers[ssrc]?.outgoingGaps.unfilled(notNewerThan: highest) ?? 0 }
    }

    /// Bits per second of what the subscriber receives that has no layers to choose from.
    static func fixedCost(_ consumers: [UInt32: Consumer]) -> Int {
        consumers.values.reduce(0) { total, consumer in
            guard !consumer.isAllocated, let producer = consumer.producer else { return total }
            return total + (producer.layerBitrates.first ?? 0)
        }
    }

    /// The video tracks the allocator spends on, with their consumers and steps.
    static func tracks(_ consumers: [UInt32: Consumer], now: ContinuousClock.Instant)
        -> (tracks: [StreamAllocator.Track], byID: [String: (consumer: Consumer, steps: [LayerStep])]) {
        var tracks: [StreamAllocator.Track] = []
        var byID: [String: (consumer: Consumer, steps: [LayerStep])] = [:]
        let time = PacketTime(now)
        for consumer in consumers.values where consumer.isAllocated {
            guard let producer = consumer.producer else { continue }
            let steps = producer.allocationSteps(now: time)
            // The subscription's own ceiling is a simulcast layer: its highest step.
            let preferred = consumer.selector?.preferred.map { layer in steps.lastIndex { $0.layer <= layer } ?? 0 }
            tracks.append(.init(id: consumer.id, layerBitrates: steps.map(\.bitrate), preferred: preferred, ranks: steps.map(\.rank)))
            byID[consumer.id] = (consumer, steps)
        }
        return (tracks, byID)
    }

    /// Bits a second of the steps `chosen` for `tracks`.
    static func cost(of chosen: [String: Int], tracks: [StreamAllocator.Track]) -> Int {
        tracks.reduce(0) { total, track in total + (chosen[track.id].map { track.layerBitrates[$0] } ?? 0) }
    }
}
