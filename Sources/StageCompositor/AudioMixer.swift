public import StageMedia
import Synchronization

/// Mixes every participant's audio into one stereo 48 kHz stream, pulled in fixed blocks (1024
/// sample frames: one AAC frame) by the encoder's clock, while decoded Opus blocks arrive at any
/// size and time from network threads.
///
/// Each source has its own bounded, primed FIFO (`AudioMixSource`: oldest dropped beyond
/// `maximumBufferedMilliseconds`, silence while it refills after running dry); a mix sums the
/// sources in float and runs a look-ahead-free limiter (`AudioMixLimiter`: instant attack,
/// exponential release, ceiling default −1 dBFS) so the sum never clips. Mono sources go to both
/// channels at full level. Thread-safe: one `Mutex` around the sources and limiter; sample
/// conversion happens outside it.
public final class AudioMixer: Sendable {
    public static let sampleRate = AudioFrame.sampleRate
    /// AAC-LC's frame size.
    public static let blockSamplesPerChannel = 1024

    private struct State {
        var sources: [String: AudioMixSource] = [:]
        var limiter: AudioMixLimiter
    }

    private let state: Mutex<State>
    private let capacityFrames: Int
    private let startThresholdFrames: Int

    /// - Parameters:
    ///   - maximumBufferedMilliseconds: per-source FIFO bound; older samples are dropped beyond it.
    ///   - startMilliseconds: how much a source must have queued before it plays (again); 0 plays
    ///     whatever is there.
    ///   - ceilingDecibels: the limiter's ceiling in dBFS.
    ///   - releaseMilliseconds: the limiter's release time constant.
    public init(maximumBufferedMilliseconds: Int = 200, startMilliseconds: Int = 40,
                ceilingDecibels: Double = -1, releaseMilliseconds: Double = 80) {
        capacityFrames = max(1, maximumBufferedMilliseconds * Self.sampleRate / 1000)
        startThresholdFrames = max(0, startMilliseconds * Self.sampleRate / 1000)
        state = Mutex(State(limiter: AudioMixLimiter(ceilingDecibels: ceilingDecibels,
                                                     releaseSeconds: releaseMilliseconds / 1000,
                                                     sampleRate: Self.sampleRate)))
    }

    /// Queues a decoded block from `sourceId` (a participant id); the first block adds the source.
    public func push(_ frame: AudioFrame, from sourceId: String) {
        let stereo = RenditionAudioInput.stereoFloat(frame)
        let (capacity, threshold) = (capacityFrames, startThresholdFrames)
        state.withLock { state in
            state.sources[sourceId, default: AudioMixSource(capacity: capacity, startThreshold: threshold)]
                .append(stereo: stereo)
        }
    }

    /// Forgets a source and whatever it had queued (the participant left or unpublished).
    public func removeSource(_ sourceId: String) {
        _ = state.withLock { $0.sources.removeValue(forKey: sourceId) }
    }

    /// The next `samplesPerChannel` sample frames of the mix, interleaved stereo, in −ceiling…ceiling.
    /// Sources with too little queued contribute silence for what they lack.
    public func mix(samplesPerChannel: Int = AudioMixer.blockSamplesPerChannel) -> [Float] {
        let frames = max(0, samplesPerChannel)
        return [Float](unsafeUninitializedCapacity: frames * 2) { buffer, count in
            buffer.initialize(repeating: 0)
            state.withLock { state in
                // The keys copied out first: iterating `keys` while mutating would copy the storage.
                for id in Array(state.sources.keys) { state.sources[id]!.add(into: buffer, frames: frames) }
                state.limiter.process(buffer)
            }
            count = frames * 2
        }
    }

    /// `mix(samplesPerChannel:)` as 16-bit PCM.
    public func mixInt16(samplesPerChannel: Int = AudioMixer.blockSamplesPerChannel) -> [Int16] {
        mix(samplesPerChannel: samplesPerChannel).map { Int16(($0 * 32767).rounded()) }
    }

    /// Sample frames queued for `sourceId` (0 for an unknown source).
    public func bufferedSamplesPerChannel(of sourceId: String) -> Int {
        state.withLock { $0.sources[sourceId]?.bufferedFrames ?? 0 }
    }

    /// The sources currently known, sorted.
    public var sourceIds: [String] {
        state.withLock { $0.sources.keys.sorted() }
    }
}
