import Foundation
import StageKit
import StageMedia
import Synchronization

/// Records what an image device delivers, keyed by the frame number the synthetic camera
/// stamped into each picture: frames captured by a publisher, or decoded by a subscriber.
final class FrameLog: Sendable {
    struct Entry: Sendable {
        var frame: VideoFrame
        var deliveredMicros: UInt64
        var captureMicros: UInt64
    }

    private let entries = Mutex<[UInt32: Entry]>([:])
    private let unreadable = Atomic<Int>(0)
    /// Keep only the pictures of this many latest frames (memory); numbers are all kept.
    let keepPictures: Int

    init(keepPictures: Int = 400) { self.keepPictures = keepPictures }

    func attach(to device: any StageDevice) {
        (device as? ImageDevice)?.setOnFrameCallback { [self] frame in record(frame) }
    }

    func record(_ frame: VideoFrame) {
        guard let stamp = FrameStamp.read(from: frame) else {
            unreadable.add(1, ordering: .relaxed)
            return
        }
        let micros = MediaClock.nowMicros()
        entries.withLock { entries in
            entries[stamp.frameNumber] = Entry(frame: frame, deliveredMicros: micros, captureMicros: stamp.captureTimeMicros)
            if entries.count > keepPictures, let oldest = entries.keys.min() { entries[oldest] = nil }
        }
    }

    var numbers: Set<UInt32> { entries.withLock { Set($0.keys) } }
    var count: Int { entries.withLock { $0.count } }
    var unreadableCount: Int { unreadable.load(ordering: .relaxed) }
    func entry(_ number: UInt32) -> Entry? { entries.withLock { $0[number] } }
    func clear() { entries.withLock { $0.removeAll() } }
}

/// Counts the PCM an audio device delivers and remembers the latest level.
final class AudioLog: Sendable {
    private let state = Mutex<(frames: Int, rms: Double)>((0, -127))

    func attach(to device: any StageDevice) {
        (device as? AudioDevice)?.setOnStatsCallback { [self] stats in state.withLock { $0 = ($0.frames + 1, stats.rms) } }
    }

    var frames: Int { state.withLock { $0.frames } }
    var rms: Double { state.withLock { $0.rms } }
}
