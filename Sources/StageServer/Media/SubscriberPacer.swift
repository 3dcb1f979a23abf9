import NIOCore
import StageSFU
import StageTransport

/// Spreads what one subscriber is sent over time (`PacingBudget`): a video packet (media, probe
/// padding) that comes while the budget is in debt, or while others wait, is held — its header
/// already rewritten by its consumer — and sent from a timer on the media event loop, in the
/// order it came. Audio and answers to NACKs are never held (late audio is lost audio; a
/// repair held here would be asked for again, and answered again, while it waits); they are
/// counted in the budget. A repair goes ahead of held video, but only while the budget is less
/// than one burst in debt (`PacingBudget.mayRepair`); beyond that it is dropped
/// (`repair_over_budget`). Until the subscriber has an estimate nothing is held, and the path
/// is the direct one.
///
/// A held packet's transport-wide number and send time are written when it leaves, by its
/// `PacedSink`: the subscriber's delay estimate sees the link's queue, not ours.
final class SubscriberPacer {
    private var budget = PacingBudget()
    private var held = CircularBuffer<Held>()
    private var heldBytes = 0
    private var drainTask: Scheduled<Void>?
    private let eventLoop: (any EventLoop)?
    /// At most this much is held; a packet beyond it is dropped (`pacer_queue_full`). The
    /// budget's queue-time limit drains the queue long before, unless the loop stalls.
    static let capacityBytes = 1_000_000
    /// The timer never fires sooner than this after it is set.
    static let shortestWait: Duration = .milliseconds(1)

    /// What a packet is to the pacer.
    enum Traffic {
        /// Video media or probe padding: held while the budget is in debt.
        case video
        /// Never held, counted.
        case audio
        /// An answer to a NACK: sent ahead of held video within one burst of debt, else dropped.
        case repair
    }

    private struct Held {
        let bytes: [UInt8]
        let sink: any PacedSink
    }

    init(eventLoop: (any EventLoop)?) {
        self.eventLoop = eventLoop
    }

    deinit { drainTask?.cancel() }

    /// What the subscriber is to be sent a second changed (`PacingBudget.pace(for:)`).
    func pace(for bitsPerSecond: Int) {
        budget.pace(for: bitsPerSecond)
    }

    /// Sends `packet` through `sink` now, or holds it (true: it will be sent). Call on the
    /// media event loop.
    func send(_ packet: UnsafeRawBufferPointer, rewrite: (UnsafeMutableRawBufferPointer) -> Void, as traffic: Traffic,
              via sink: some PacedSink) -> Bool {
        guard budget.bitsPerSecond != nil, eventLoop != nil else { return sink.write(packet, rewrite: rewrite) }
        let now = PacketTime.now
        switch traffic {
        case .video: break
        case .repair where !budget.mayRepair(queuedBytes: heldBytes, now: now):
            MediaDropReason.repairOverBudget.count()
            return false
        case .audio, .repair:
            budget.spend(packet.count, queuedBytes: heldBytes, now: now)
            return sink.write(packet, rewrite: rewrite)
        }
        if held.isEmpty, budget.maySend(queuedBytes: 0, now: now) {
            budget.spend(packet.count, queuedBytes: 0, now: now)
            return sink.write(packet, rewrite: rewrite)
        }
        guard heldBytes + packet.count <= Self.capacityBytes else {
            MediaDropReason.pacerQueueFull.count()
            return false
        }
        var bytes = [UInt8](packet)
        bytes.withUnsafeMutableBytes(rewrite)
        held.append(Held(bytes: bytes, sink: sink))
        heldBytes += bytes.count
        MediaMetrics.shared.pacedPackets.increment()
        scheduleDrain()
        return true
    }

    /// Drops what is held (the subscriber left).
    func close() {
        drainTask?.cancel()
        drainTask = nil
        held.removeAll()
        heldBytes = 0
    }

    /// Sends what the budget allows now, oldest first, and sets the timer for the rest.
    private func drain() {
        drainTask = nil
        let now = PacketTime.now
        while let next = held.first, budget.maySend(queuedBytes: heldBytes, now: now) {
            held.removeFirst()
            heldBytes -= next.bytes.count
            budget.spend(next.bytes.count, queuedBytes: heldBytes, now: now)
            _ = next.bytes.withUnsafeBytes { next.sink.write($0) { _ in } }
        }
        scheduleDrain()
    }

    private func scheduleDrain() {
        guard drainTask == nil, !held.isEmpty, let eventLoop else { return }
        let wait = max(budget.wait(queuedBytes: heldBytes), Self.shortestWait)
        let pacer = NIOLoopBound(WeakPacer(pacer: self), eventLoop: eventLoop)
        drainTask = eventLoop.scheduleTask(in: TimeAmount(wait)) {
            pacer.value.pacer?.drain()
        }
    }

    /// Lets the timer end with the pacer instead of keeping it alive.
    private struct WeakPacer { weak var pacer: SubscriberPacer? }
}

/// Where a pacer's packets go (`ConsumerOutput`; a recorder in tests).
protocol PacedSink: AnyObject {
    /// Stamps, protects and sends one packet after `rewrite` (the consumer's header rewrite;
    /// nothing for a held packet, rewritten already). False when it was not sent (counted).
    func write(_ packet: UnsafeRawBufferPointer, rewrite: (UnsafeMutableRawBufferPointer) -> Void) -> Bool
}
