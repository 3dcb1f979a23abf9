import Testing
@testable import StageSFU

/// The pacer's leaky bucket: a multiple of the estimate, a small burst, a queue that is never
/// held longer than `longestQueue`.
struct PacingBudgetTests {
    static let start = ContinuousClock.now
    static func at(_ milliseconds: Int) -> PacketTime { PacketTime(start + .milliseconds(milliseconds)) }
    static func may(_ budget: inout PacingBudget, at milliseconds: Int) -> Bool {
        budget.maySend(queuedBytes: 0, now: at(milliseconds))
    }
    static func mayRepair(_ budget: inout PacingBudget, queued: Int, at milliseconds: Int) -> Bool {
        budget.mayRepair(queuedBytes: queued, now: at(milliseconds))
    }

    @Test("without an estimate nothing waits")
    func unpaced() {
        var budget = PacingBudget()
        #expect(budget.bitsPerSecond == nil)
        for _ in 0..<100 {
            #expect(Self.may(&budget, at: 0))
            budget.spend(1_200, queuedBytes: 0, now: Self.at(0))
        }
        #expect(budget.wait(queuedBytes: 0) == .zero)
    }

    @Test("1.5 × the rate to send, never under the floor")
    func rate() {
        var budget = PacingBudget()
        budget.pace(for: 1_000_000)
        #expect(budget.bitsPerSecond == 1_500_000)
        budget.pace(for: 50_000)
        #expect(budget.bitsPerSecond == PacingBudget.minimumBitsPerSecond)
        budget.pace(for: nil)
        #expect(budget.bitsPerSecond == nil)
    }

    @Test("a burst goes one packet into debt, then waits the debt out at the pacing rate")
    func debt() {
        var budget = PacingBudget()
        budget.pace(for: 200_000)  // paced at 300 kbps: 37.5 bytes a millisecond
        #expect(Self.may(&budget, at: 0))
        budget.spend(1_500, queuedBytes: 0, now: Self.at(0))
        #expect(!Self.may(&budget, at: 0), "in debt")
        #expect(budget.wait(queuedBytes: 0) == .milliseconds(40), "1,500 bytes at 37.5 a millisecond")
        #expect(!Self.may(&budget, at: 39))
        #expect(Self.may(&budget, at: 40))
    }

    @Test("a quiet spell fills the budget only up to the burst")
    func burstCeiling() {
        var budget = PacingBudget()
        budget.pace(for: 2_000_000)  // 3 Mbps: 10 ms is 3,750 bytes
        #expect(Self.may(&budget, at: 0))
        var sent = 0
        while budget.maySend(queuedBytes: 0, now: Self.at(5_000)) {
            budget.spend(1_000, queuedBytes: 0, now: Self.at(5_000))
            sent += 1_000
        }
        #expect(sent == 4_000, "3,750 bytes of burst, the last packet into debt")
        var slow = PacingBudget()
        slow.pace(for: 100_000)  // the floor, 150 kbps: 10 ms is 187 bytes, under the two-packet minimum
        #expect(Self.may(&slow, at: 0))
        sent = 0
        while slow.maySend(queuedBytes: 0, now: Self.at(5_000)) {
            slow.spend(1_200, queuedBytes: 0, now: Self.at(5_000))
            sent += 1_200
        }
        #expect(sent == 2 * 1_200 + 1_200, "2,400 bytes of burst, then one more into debt")
    }

    @Test("a long queue raises the rate so that it leaves within 250 ms")
    func queueTimeLimit() {
        var budget = PacingBudget()
        budget.pace(for: 100_000)  // 150 kbps
        budget.spend(1_000, queuedBytes: 0, now: Self.at(0))
        #expect(budget.wait(queuedBytes: 0) == .nanoseconds(53_333_333), "1,000 bytes at 150 kbps")
        // 100 KB waiting must go within 250 ms: 3.2 Mbps, so the debt is paid 21× sooner.
        #expect(budget.wait(queuedBytes: 100_000) == .microseconds(2_500))
    }

    @Test("a repair may go until the budget is one burst in debt, held video or not; without an estimate always")
    func repairs() {
        var budget = PacingBudget()
        #expect(Self.mayRepair(&budget, queued: 0, at: 0), "no estimate")
        budget.pace(for: 200_000)  // 300 kbps: one burst is the 2,400-byte minimum
        #expect(Self.mayRepair(&budget, queued: 5_000, at: 0))
        budget.spend(1_500, queuedBytes: 5_000, now: Self.at(0))
        #expect(!Self.may(&budget, at: 0), "video waits")
        #expect(Self.mayRepair(&budget, queued: 5_000, at: 0), "1,500 in debt, under a burst")
        budget.spend(1_000, queuedBytes: 5_000, now: Self.at(0))
        #expect(!Self.mayRepair(&budget, queued: 0, at: 0), "2,500 in debt")
        #expect(Self.mayRepair(&budget, queued: 0, at: 3), "3 ms at 37.5 bytes a millisecond paid 112 of it")
    }
}
