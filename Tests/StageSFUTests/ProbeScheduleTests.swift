import StageSFU
import Testing

/// `ProbeSchedule`: the wait after failed probes, and a probe given up on NACKs.
@Suite struct ProbeScheduleTests {
    let start = ContinuousClock.now

    @Test("Failures in a row wait 2, 4 and then 4 s again; a pass ends the wait at once")
    func waits() {
        var schedule = ProbeSchedule()
        var now = start
        #expect(schedule.mayStart(now: now))
        for expected in [2, 4, 4, 4] {
            schedule.started()
            #expect(!schedule.mayStart(now: now))
            schedule.ended(passed: false, now: now)
            #expect(!schedule.mayStart(now: now + .seconds(expected) - .milliseconds(1)))
            #expect(schedule.mayStart(now: now + .seconds(expected)))
            now += .seconds(expected)
        }
        schedule.started()
        schedule.ended(passed: true, now: now)
        #expect(schedule.mayStart(now: now))
        schedule.started()
        schedule.ended(passed: false, now: now)
        #expect(!schedule.mayStart(now: now + .milliseconds(1_999)))
        #expect(schedule.mayStart(now: now + .seconds(2)))
    }

    @Test("The third NACKed packet during a probe gives it up and starts the wait")
    func givenUpOnNacks() {
        var schedule = ProbeSchedule()
        schedule.started()
        let gaveUp1 = schedule.nacked(count: 1, sentSinceStart: 50, now: start)
        #expect(!gaveUp1)
        let gaveUp2 = schedule.nacked(count: 1, sentSinceStart: 50, now: start)
        #expect(!gaveUp2)
        #expect(schedule.probing)
        let gaveUp3 = schedule.nacked(count: 1, sentSinceStart: 50, now: start + .milliseconds(300))
        #expect(gaveUp3)
        #expect(!schedule.probing)
        #expect(!schedule.mayStart(now: start + .milliseconds(2_299)))
        #expect(schedule.mayStart(now: start + .milliseconds(2_300)))
    }

    @Test("At a high packet rate three NACKs are not enough: the loss must reach 2 % of what was sent")
    func lossShare() {
        var schedule = ProbeSchedule()
        schedule.started()
        let atThree = schedule.nacked(count: 3, sentSinceStart: 400, now: start)
        #expect(!atThree)
        let atSeven = schedule.nacked(count: 4, sentSinceStart: 400, now: start)
        #expect(!atSeven)
        let atEight = schedule.nacked(count: 1, sentSinceStart: 400, now: start)
        #expect(atEight)
    }

    @Test("One NACK listing three packets gives the probe up too")
    func oneNackOfThree() {
        var schedule = ProbeSchedule()
        schedule.started()
        let gaveUp4 = schedule.nacked(count: 3, sentSinceStart: 50, now: start)
        #expect(gaveUp4)
    }

    @Test("NACKs with no probe under way, or before the next one, change nothing")
    func nacksOutsideProbes() {
        var schedule = ProbeSchedule()
        let gaveUp5 = schedule.nacked(count: 10, sentSinceStart: 50, now: start)
        #expect(!gaveUp5)
        #expect(schedule.mayStart(now: start))
        schedule.started()
        let gaveUp6 = schedule.nacked(count: 2, sentSinceStart: 50, now: start)
        #expect(!gaveUp6)
        schedule.ended(passed: true, now: start)
        let gaveUp7 = schedule.nacked(count: 5, sentSinceStart: 50, now: start)
        #expect(!gaveUp7)
        schedule.started()
        let gaveUp8 = schedule.nacked(count: 2, sentSinceStart: 50, now: start)
        #expect(!gaveUp8)  // the count starts over with each probe
    }

    @Test("A probe cancelled unjudged leaves no wait and counts no more NACKs")
    func cancelled() {
        var schedule = ProbeSchedule()
        schedule.started()
        schedule.cancelled()
        #expect(!schedule.probing)
        let gaveUp9 = schedule.nacked(count: 5, sentSinceStart: 50, now: start)
        #expect(!gaveUp9)
        #expect(schedule.mayStart(now: start))
    }
}
