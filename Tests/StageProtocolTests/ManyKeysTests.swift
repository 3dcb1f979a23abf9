import Foundation
import Testing
@testable import StageProtocol

/// A signaling frame is read before any token check, so reading it must cost time in
/// proportion to its size: an object of thousands of keys once took 0.2 s of CPU (a quadratic
/// duplicate check). Four times the keys must cost about four times the time, not sixteen.
@Suite struct ManyKeysTests {
    static func frame(keys: Int) -> String {
        let members = (0..<keys).map { "\"k\($0)\":1" }.joined(separator: ",")
        return "{\"type\":\"join\",\"requestId\":\"r1\",\"token\":\"t\",\"x\":{\(members)}}"
    }

    /// The fastest of `rounds` decodes of each text, measured alternately, so a burst of load
    /// on a shared machine slows both sides rather than one.
    static func fastest(_ texts: [String], rounds: Int = 7) -> [Duration] {
        let codec = SignalCodec()
        var best = Array(repeating: Duration.seconds(3600), count: texts.count)
        for _ in 0..<rounds {
            for (index, text) in texts.enumerated() {
                best[index] = min(best[index], ContinuousClock().measure { _ = try? codec.decodeClient(text) })
            }
        }
        return best
    }

    @Test func readingTimeGrowsLinearlyWithTheKeys() {
        let small = Self.frame(keys: 2_250), large = Self.frame(keys: 9_000)
        #expect(large.utf8.count < 100_000)
        let times = Self.fastest([small, large])
        let smallTime = times[0], largeTime = times[1]
        print("2,250 keys: \(smallTime), 9,000 keys (\(large.utf8.count) bytes): \(largeTime)")
        // Linear reading gives about 4×; the quadratic duplicate check gave 16×.
        #expect(largeTime < smallTime * 8, "9,000 keys took \(largeTime), 2,250 took \(smallTime)")
    }
}
