import Foundation
import StageKit
import Synchronization

/// The sound level of one audio stream between two status blocks, from the SDK's 20 ms level
/// callbacks (peak and RMS in dBFS, as the waveform article computes them): the loudest peak and
/// the RMS of the whole interval (the blocks' powers averaged), drawn as a small meter.
final class AudioLevelMeter: Sendable {
    private let window = Mutex<(peak: Double, power: Double, blocks: Int)>((-.infinity, 0, 0))

    /// Called for every 20 ms block.
    func record(_ stats: AudioDeviceStats) {
        window.withLock { window in
            window.peak = max(window.peak, stats.peak)
            window.power += pow(10, stats.rms / 10)
            window.blocks += 1
        }
    }

    /// `level ▮▮▮▮▯▯▯▯ -21 dBFS (peak -18)` for the blocks since the last call, then starts over;
    /// nil when no block came.
    func takeReading() -> String? {
        let (peak, power, blocks) = window.withLock { window in
            defer { window = (-.infinity, 0, 0) }
            return window
        }
        guard blocks > 0 else { return nil }
        let rms = power > 0 ? 10 * log10(power / Double(blocks)) : -.infinity
        return "level \(Self.bar(rms)) \(Self.decibels(rms)) dBFS (peak \(Self.decibels(peak)))"
    }

    /// Eight cells over -60…0 dBFS.
    static func bar(_ level: Double) -> String {
        let cells = level.isFinite ? Int(((level + 60) / 60 * 8).rounded()).clamped(to: 0...8) : 0
        return String(repeating: "▮", count: cells) + String(repeating: "▯", count: 8 - cells)
    }

    static func decibels(_ level: Double) -> String { level.isFinite && level > -120 ? String(format: "%.0f", level) : "-∞" }
}

private extension Comparable {
    func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
