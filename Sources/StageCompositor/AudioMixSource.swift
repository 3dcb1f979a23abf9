/// One participant's queue of stereo float samples waiting to be mixed: a bounded FIFO with a
/// start threshold, so network jitter neither grows latency nor chops the sound.
///
/// - Bounded: when more than `capacity` sample frames are queued, the oldest are dropped, so
///   a source that sends faster than the mix pulls (or after a stall, in a burst) stays within
///   `capacity` of real time.
/// - Primed: a source plays only once `startThreshold` frames are queued; when it runs dry
///   mid-block the rest of the block is silence and it waits to refill to the threshold again
///   (one clean gap instead of a click every block).
struct AudioMixSource {
    let capacity: Int
    let startThreshold: Int
    /// Interleaved L R L R…; live samples start at `readIndex`.
    private var samples: [Float] = []
    private var readIndex = 0
    private(set) var isPlaying = false
    private(set) var droppedFrames = 0
    private(set) var underruns = 0

    init(capacity: Int, startThreshold: Int) {
        self.capacity = max(1, capacity)
        self.startThreshold = min(max(0, startThreshold), self.capacity)
    }

    /// Sample frames (per channel) queued.
    var bufferedFrames: Int { (samples.count - readIndex) / 2 }

    /// Appends interleaved stereo samples, dropping the oldest beyond `capacity`.
    mutating func append(stereo: [Float]) {
        samples.append(contentsOf: stereo)
        let excess = bufferedFrames - capacity
        if excess > 0 {
            readIndex += excess * 2
            droppedFrames += excess
        }
        compactIfWorthwhile()
    }

    /// Adds up to `frames` sample frames into `mix` (interleaved stereo), or nothing while priming.
    mutating func add(into mix: UnsafeMutableBufferPointer<Float>, frames: Int) {
        if !isPlaying {
            guard bufferedFrames > 0, bufferedFrames >= startThreshold else { return }
            isPlaying = true
        }
        let available = min(frames, bufferedFrames)
        samples.withUnsafeBufferPointer { queued in
            for index in 0..<(available * 2) { mix[index] += queued[readIndex + index] }
        }
        readIndex += available * 2
        if available < frames {
            isPlaying = false
            underruns += 1
        }
        compactIfWorthwhile()
    }

    private mutating func compactIfWorthwhile() {
        if readIndex > 0 && readIndex * 2 >= samples.count {
            samples.removeFirst(readIndex)
            readIndex = 0
        }
    }
}
