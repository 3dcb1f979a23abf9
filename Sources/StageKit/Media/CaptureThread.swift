import Foundation
import StageMedia
import Synchronization

/// A thread that calls `tick` at a fixed period until stopped: the capture and encode loop of a
/// local track. Ticks that fall behind by more than a period are skipped, not bunched.
final class CaptureThread: Sendable {
    private let stopped = Atomic<Bool>(false)

    init(name: String, periodMicros: UInt64, tick: @escaping @Sendable (_ nowMicros: UInt64) -> Void) {
        let thread = Thread { [self] in
            var next = MediaClock.nowMicros()
            while !self.stopped.load(ordering: .relaxed) {
                let now = MediaClock.nowMicros()
                if now < next {
                    usleep(useconds_t(min(next - now, 1_000_000)))
                    continue
                }
                tick(now)
                next += periodMicros
                if MediaClock.nowMicros() > next + periodMicros { next = MediaClock.nowMicros() }
            }
        }
        thread.name = name
        thread.start()
    }

    func stop() { stopped.store(true, ordering: .relaxed) }
}
