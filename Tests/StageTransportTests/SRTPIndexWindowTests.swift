@testable import StageTransport
import Testing

/// `SRTPIndexWindow`: index estimates (RFC 3711 Appendix A, libsrtp's rule below 32,768) and
/// the replay list of the last 1,024 indices, across the words it is kept in.
struct SRTPIndexWindowTests {
    /// (what, sequence numbers added in order, then (sequence, expected index, delta, verdict)).
    static let cases: [(String, [UInt16], [(UInt16, UInt64, Int64, SRTPIndexWindow.Verdict)])] = [
        ("nothing seen: 0 is new", [], [(0, 0, 0, .new), (40_000, 40_000, 40_000, .new)]),
        ("seen once: a replay", [0], [(0, 0, 0, .replayed), (1, 1, 1, .new)]),
        ("a gap stays open behind", [1, 2, 5], [(3, 3, -2, .new), (2, 2, -3, .replayed), (5, 5, 0, .replayed)]),
        ("bits carried over word edges by a shift of 65", Array(1...70) + [135],
         [(70, 70, -65, .replayed), (71, 71, -64, .new), (6, 6, -129, .replayed), (134, 134, -1, .new)]),
        ("the window's far edge", Array(stride(from: 1, through: 2_000, by: 1)).map { UInt16($0) },
         [(977, 977, -1_023, .replayed), (976, 976, -1_024, .tooOld)]),
        ("past 32,768 the counter is guessed: over the wrap and back", [40_000, 65_535, 3],
         [(65_534, 65_534, -5, .new), (4, 65_540, 1, .new), (60_000, 60_000, -5_539, .tooOld)]),
        ("a jump of more than the window clears it", [1, 2, 3, 2_000], [(3, 3, -1_997, .tooOld), (1_999, 1_999, -1, .new)]),
    ]

    @Test(arguments: cases.indices)
    func estimatesAndRemembers(_ index: Int) {
        let (what, added, checks) = Self.cases[index]
        var window = SRTPIndexWindow()
        for sequence in added {
            let (index, delta, _) = window.estimate(sequence)
            window.add(index: index, delta: delta)
        }
        for (sequence, index, delta, verdict) in checks {
            let estimate = window.estimate(sequence)
            #expect(estimate.index == index && estimate.delta == delta && estimate.verdict == verdict,
                    "\(what): \(sequence) → \(estimate), expected (\(index), \(delta), \(verdict))")
        }
    }
}
