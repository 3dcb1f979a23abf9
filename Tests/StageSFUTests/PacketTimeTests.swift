import Testing
@testable import StageSFU

/// The per-packet path's clock: `ContinuousClock` readings as nanoseconds.
struct PacketTimeTests {
    @Test("readings of the continuous clock keep their order and their distance")
    func followsTheClock() {
        let first = ContinuousClock.now
        let later = first + .milliseconds(1500) + .nanoseconds(7)
        #expect(PacketTime(later) - PacketTime(first) == .milliseconds(1500) + .nanoseconds(7))
        #expect(PacketTime(first) < PacketTime(later))
        #expect(PacketTime(first - .seconds(2)) - PacketTime(first) == .seconds(-2))
    }

    @Test("adding a duration, positive or negative, is exact to the nanosecond, fractions of one dropped")
    func arithmetic() {
        let time = PacketTime(nanoseconds: 5_000_000_000)
        #expect((time + .milliseconds(250)).nanoseconds == 5_250_000_000)
        #expect((time + .seconds(-6)).nanoseconds == -1_000_000_000)
        #expect((time + .nanoseconds(1) / 2).nanoseconds == 5_000_000_000)
        #expect(time + .seconds(1) - time == .seconds(1))
    }

    @Test("seconds since an earlier reading, and negative since a later one")
    func secondsSince() {
        let time = PacketTime(nanoseconds: 5_250_000_000)
        #expect(time.seconds(since: PacketTime(nanoseconds: 5_000_000_000)) == 0.25)
        #expect(PacketTime(nanoseconds: 0).seconds(since: time) == -5.25)
    }

    @Test("microseconds: whole ones since the origin, never negative")
    func microseconds() {
        #expect(PacketTime(nanoseconds: 1_234_567).microseconds == 1234)
        #expect(PacketTime(nanoseconds: -5_000).microseconds == 0)
        #expect(PacketTime.now.microseconds < PacketTime(ContinuousClock.now + .seconds(1)).microseconds)
    }
}
