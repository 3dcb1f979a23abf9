import Foundation
import Testing
@testable import StageProtocol

/// A signaling frame is read before any token check, so reading it must cost time in
/// proportion to its size: an object of thousands of keys once took 0.2 s of CPU (a quadratic
/// duplicate check). Doubling the keys must not much more than double the time.
@Suite struct ManyKeysTests {
    static func frame(keys: Int) -> String {
        let members = (0..<keys).map { "\"k\($0)\":1" }.joined(separator: ",")
        return "{\"type\":\"join\",\"requestId\":\"r1\",\"token\":\"t\",\"x\":{\(members)}}"
    }

    static func fastest(_ text: String) -> Duration {
        let codec = SignalCodec()
        return (0..<3).map { _ in ContinuousClock().measure { _ = try? codec.decodeClient(text) } }.min() ?? .zero
    }

    @Test func readingTimeGrowsLinearlyWithTheKeys() {
        let small = Self.frame(keys: 4_500), large = Self.frame(keys: 9_000)
        #expect(large.utf8.count < 100_000)
        let smallTime = Self.fastest(small), largeTime = Self.fastest(large)
        print("4,500 keys: \(smallTime), 9,000 keys (\(large.utf8.count) bytes): \(largeTime)")
        #expect(largeTime < smallTime * 3, "9,000 keys took \(largeTime), 4,500 took \(smallTime)")
    }
}
