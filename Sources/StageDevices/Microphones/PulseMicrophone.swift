import Foundation
public import StageMedia
import Synchronization

/// A microphone read through PulseAudio: a thread records 20 ms blocks as the sound server
/// delivers them; the capture loop, polling every 5 ms, takes each as it comes. Should it fall
/// behind, the queue stays short: past ``maxQueuedBlocks`` the oldest block goes (counted).
public final class PulseMicrophone: AudioSource, @unchecked Sendable {
    /// Blocks (20 ms each) waiting at most before the oldest is dropped: bounds the delay.
    public static let maxQueuedBlocks = 2
    public let channels: Int
    public let device: String?
    private let connection: PulseConnection
    private let state = Mutex(State())
    private let stopped = Atomic<Bool>(false)
    private let suppressor = Mutex<EchoSuppressor?>(nil)

    struct State {
        var queue: [[Int16]] = []
        var recorded = 0
        var dropped = 0
        var failure: SoundDeviceError?
    }

    private static let open = Mutex<[String: PulseMicrophone]>([:])

    /// The microphone already recording `device`, or a new one: publishing again (a reconnect,
    /// a strategy change) takes up the same recording instead of starting a second one.
    public static func shared(device: String?, channels: Int = 1) throws(SoundDeviceError) -> PulseMicrophone {
        let key = "\(device ?? "")/\(channels)"
        if let microphone = open.withLock({ $0[key] }), microphone.failure == nil { return microphone }
        let microphone = try PulseMicrophone(device: device, channels: channels)
        open.withLock { $0[key] = microphone }
        return microphone
    }

    /// - Parameter device: a PulseAudio source name (`pactl list short sources`); nil: the default.
    public init(device: String?, channels: Int = 1) throws(SoundDeviceError) {
        self.device = device
        self.channels = channels
        connection = try PulseConnection(recording: true, device: device, channels: channels, latencyMillis: 20, streamName: "microphone")
        let thread = Thread { [self] in record() }
        thread.name = "pulse-mic"
        thread.start()
    }

    /// Blocks recorded, and dropped because the capture loop fell behind.
    public var counts: (recorded: Int, dropped: Int) { state.withLock { ($0.recorded, $0.dropped) } }
    /// Why recording stopped, if it did.
    public var failure: SoundDeviceError? { state.withLock { $0.failure } }

    /// Attenuates what this microphone records while the speaker plays the far end (nil: off).
    public func setEchoSuppressor(_ echoSuppressor: EchoSuppressor?) { suppressor.withLock { $0 = echoSuppressor } }

    /// Polled every 5 ms, so a recorded block waits at most that long.
    public var pollsPerFrame: Int { 4 }

    public func nextFrame(captureTimeMicros: UInt64) -> AudioFrame? {
        state.withLock { state in
            guard !state.queue.isEmpty else { return nil }
            return AudioFrame(channels: channels, samples: state.queue.removeFirst(), captureTimeMicros: captureTimeMicros)
        }
    }

    public func stop() { stopped.store(true, ordering: .relaxed) }

    private func record() {
        var block = [Int16](repeating: 0, count: AudioCapture.samplesPerChannel * channels)
        while !stopped.load(ordering: .relaxed) {
            do {
                try connection.read(into: &block)
                suppressor.withLock { $0 }?.nearEnd(&block, nowMicros: MediaClock.nowMicros())
            } catch {
                state.withLock { $0.failure = error }
                return
            }
            state.withLock { state in
                state.recorded += 1
                state.queue.append(block)
                if state.queue.count > Self.maxQueuedBlocks {
                    state.queue.removeFirst()
                    state.dropped += 1
                }
            }
        }
    }
}
