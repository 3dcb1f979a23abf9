import NIOCore

/// Paces every publisher's three layers from one repeated task on the clients' event loop:
/// every 20 ms each connected, unmuted publisher sends its share of `rate` (top layer),
/// `rate / 2` (h) and `rate / 4` (q) packets/s, with a keyframe on each layer once a second.
final class SoakSender: @unchecked Sendable {
    static let tick: TimeAmount = .milliseconds(20)
    static let ticksPerSecond = 50
    let eventLoop: any EventLoop
    let publishers: [SoakPublisher]
    /// Packets per second of each layer, lowest first.
    let layerRates: [Int]
    private var task: RepeatedTask?
    private var ticks = 0
    /// Packets sent, all publishers and layers (read on the event loop).
    private(set) var sent = 0

    init(eventLoop: any EventLoop, publishers: [SoakPublisher], rate: Int) {
        self.eventLoop = eventLoop
        self.publishers = publishers
        layerRates = [max(1, rate / 4), max(1, rate / 2), rate]
    }

    /// Starts pacing; `stop()` ends it (the soak's run loop is bounded, and so is this).
    func start() {
        eventLoop.execute { [self] in
            task = eventLoop.scheduleRepeatedTask(initialDelay: .zero, delay: Self.tick) { [weak self] _ in self?.send() }
        }
    }

    func stop() async {
        try? await eventLoop.submit { [self] in task?.cancel() }.get()
    }

    private func send() {
        let tick = ticks
        ticks += 1
        for publisher in publishers {
            guard let peer = publisher.peer, !publisher.muted else { continue }
            for (layer, rate) in layerRates.enumerated() {
                // Packets due by the end of this tick minus those due by its start: exact over a second.
                let due = rate * (tick + 1) / Self.ticksPerSecond - rate * tick / Self.ticksPerSecond
                for _ in 0..<due {
                    let counter = publisher.counters[layer]
                    SoakPacket.make(ssrc: peer.tracks[0].ssrc &+ UInt32(layer), sequence: publisher.sequences[layer],
                                    publisher: UInt16(publisher.index), layer: layer, counter: counter,
                                    keyframe: publisher.keyframeDue[layer] || counter % UInt32(rate) == 0, into: &publisher.buffer)
                    publisher.keyframeDue[layer] = false
                    publisher.buffer.withUnsafeBytes { _ = peer.sendRTP($0, flush: false) }
                    publisher.counters[layer] += 1
                    publisher.sequences[layer] &+= 1
                    sent += 1
                }
            }
            peer.flush()
        }
    }

    /// Mutes or unmutes one publisher; unmuting starts every layer on a keyframe.
    func setMuted(_ index: Int, _ muted: Bool) async {
        try? await eventLoop.submit { [self] in
            let publisher = publishers[index]
            publisher.muted = muted
            if !muted { publisher.keyframeDue = [true, true, true] }
        }.get()
    }

    /// Packets sent so far.
    func sentCount() async -> Int { (try? await eventLoop.submit { self.sent }.get()) ?? 0 }
}
