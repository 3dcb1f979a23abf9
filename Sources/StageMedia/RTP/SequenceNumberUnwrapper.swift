/// Turns 16-bit RTP sequence numbers into a monotonic 64-bit count that survives wraparound
/// (RFC 3550 §6.4.1 "extended highest sequence number", Appendix A.1).
///
/// Each number is placed at the signed 16-bit distance from the highest one seen so far, so a
/// packet up to 32767 behind is "earlier" (possibly below zero) and up to 32767 ahead is "later".
/// The first number unwraps to itself.
public struct SequenceNumberUnwrapper: Hashable, Sendable {
    /// The highest extended number returned so far, `nil` before the first.
    public private(set) var highest: Int64?

    public init() {}

    /// The extended number of `sequenceNumber`; advances `highest` when it is newer.
    public mutating func unwrap(_ sequenceNumber: UInt16) -> Int64 {
        let extended = peek(sequenceNumber)
        if highest.map({ extended > $0 }) ?? true { highest = extended }
        return extended
    }

    /// The extended number `unwrap(_:)` would return, without recording it.
    public func peek(_ sequenceNumber: UInt16) -> Int64 {
        guard let highest else { return Int64(sequenceNumber) }
        let distance = Int16(bitPattern: sequenceNumber &- UInt16(truncatingIfNeeded: highest))
        return highest + Int64(distance)
    }

    /// Forgets the history: the next number unwraps to itself.
    public mutating func reset() {
        highest = nil
    }
}
