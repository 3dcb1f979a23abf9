import Foundation
public import StageMedia
import Synchronization

/// Plays the sum of several audio streams through PulseAudio: each stream queues its 20 ms
/// blocks as they are played out; a thread takes one block of every stream per 20 ms, adds
/// them (saturating), and writes the mix, paced by the sound server. A stream's queue is a
/// small jitter buffer: mixing starts at ``startBlocks`` (the SDK already smooths the network's
/// jitter), and past ``maxQueuedBlocks`` the oldest block goes, so the delay stays low when
/// clocks drift.
public final class PulseSpeaker: @unchecked Sendable {
    public static let maxQueuedBlocks = 2
    /// Blocks a stream's queue holds before it is first mixed (again after running dry).
    public static let startBlocks = 1
    /// What the server buffers before it is heard, in ms.
    public static let serverLatencyMillis = 40
    public let device: String?
    private let connection: PulseConnection
    private let state = Mutex(State())
    private let stopped = Atomic<Bool>(false)
    private let suppressor = Mutex<EchoSuppressor?>(nil)

    struct Queue {
        var blocks: [[Int16]] = []
        var started = false
    }

    struct State {
        var queues: [String: Queue] = [:]
        var played = 0
        var dropped = 0
        var underruns = 0
        var failure: SoundDeviceError?
    }

    /// - Parameter device: a PulseAudio sink name (`pactl list short sinks`); nil: the default.
    public init(device: String?) throws(SoundDeviceError) {
        self.device = device
        connection = try PulseConnection(recording: false, device: device, channels: 2,
                                         latencyMillis: Self.serverLatencyMillis, streamName: "stage")
        let thread = Thread { [self] in play() }
        thread.name = "pulse-speaker"
        thread.start()
    }

    /// Queues 20 ms of `source` (any id: a participant and stream) for the mix.
    public func enqueue(_ frame: AudioFrame, from source: String) {
        let stereo = frame.channels == 2 ? frame.samples : frame.samples.flatMap { [$0, $0] }
        state.withLock { state in
            state.queues[source, default: Queue()].blocks.append(stereo)
            if state.queues[source]!.blocks.count > Self.maxQueuedBlocks {
                state.queues[source]!.blocks.removeFirst()
                state.dropped += 1
            }
        }
    }

    /// Tells `echoSuppressor` what is played (nil: nobody listens).
    public func setEchoSuppressor(_ echoSuppressor: EchoSuppressor?) { suppressor.withLock { $0 = echoSuppressor } }

    /// Forgets a stream that ended.
    public func remove(source: String) { state.withLock { _ = $0.queues.removeValue(forKey: source) } }

    /// Blocks written, blocks dropped because a queue overflowed, and blocks where a started
    /// stream had nothing (it is heard as a gap).
    public var counts: (played: Int, dropped: Int, underruns: Int) { state.withLock { ($0.played, $0.dropped, $0.underruns) } }
    public var failure: SoundDeviceError? { state.withLock { $0.failure } }
    /// The server's playback latency now, in microseconds.
    public var latencyMicros: UInt64 { connection.latencyMicros }

    public func stop() { stopped.store(true, ordering: .relaxed) }

    private func play() {
        let count = AudioCapture.samplesPerChannel * 2
        while !stopped.load(ordering: .relaxed) {
            let mix = state.withLock { state in
                var sum = [Int32](repeating: 0, count: count)
                for id in Array(state.queues.keys) {
                    var queue = state.queues[id]!
                    if !queue.started, queue.blocks.count >= Self.startBlocks { queue.started = true }
                    if queue.started {
                        if queue.blocks.isEmpty {
                            state.underruns += 1
                            queue.started = false
                        } else {
                            let block = queue.blocks.removeFirst()
                            for index in 0..<min(count, block.count) { sum[index] += Int32(block[index]) }
                        }
                    }
                    state.queues[id] = queue
                }
                state.played += 1
                return sum.map { Int16(clamping: $0) }
            }
            suppressor.withLock { $0 }?.farEnd(mix, nowMicros: MediaClock.nowMicros())
            do {
                try connection.write(mix)
            } catch {
                state.withLock { $0.failure = error }
                return
            }
        }
    }
}
