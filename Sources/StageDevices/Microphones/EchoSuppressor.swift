import Foundation
import Synchronization

/// Half-duplex echo suppression for a host on speakers: while the far end is heard (the
/// speaker's mix is above ``farEndThresholdDBFS``, and for ``hangoverMillis`` after, which
/// covers the speaker's buffer and the room), the microphone is attenuated by
/// ``attenuationDB``, so the others do not hear themselves come back. Both talking at once
/// loses the near end (the price of half duplex); headphones need none of this.
public final class EchoSuppressor: Sendable {
    public static let farEndThresholdDBFS = -45.0
    public static let hangoverMillis: UInt64 = 250
    public static let attenuationDB = 30.0

    private let activeUntilMicros = Atomic<UInt64>(0)
    private let gain = pow(10, -attenuationDB / 20)
    private let suppressedBlocks = Atomic<Int>(0)

    public init() {}

    /// The speaker's mix, as it is written (interleaved 16-bit samples).
    public func farEnd(_ samples: [Int16], nowMicros: UInt64) {
        guard !samples.isEmpty else { return }
        let power = samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)
        let level = 10 * log10(max(power, 1e-9) / (32768.0 * 32768.0))
        if level > Self.farEndThresholdDBFS {
            activeUntilMicros.store(nowMicros + Self.hangoverMillis * 1000, ordering: .relaxed)
        }
    }

    /// Attenuates a microphone block captured at `nowMicros` if the far end is being heard.
    public func nearEnd(_ samples: inout [Int16], nowMicros: UInt64) {
        guard nowMicros < activeUntilMicros.load(ordering: .relaxed) else { return }
        suppressedBlocks.add(1, ordering: .relaxed)
        for index in samples.indices { samples[index] = Int16((Double(samples[index]) * gain).rounded()) }
    }

    /// Microphone blocks attenuated so far.
    public var suppressed: Int { suppressedBlocks.load(ordering: .relaxed) }
}
