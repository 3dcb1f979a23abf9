/// The SRTP packet indices of one SSRC (RFC 3711 §3.3.1: rollover counter × 65,536 + sequence
/// number), as libsrtp keeps them for either direction: each packet's index estimated from the
/// highest so far (RFC 3711 Appendix A), and which of the last `size` indices were seen, the
/// replay list of §3.3.2. Until an index past 32,768 has been seen the rollover counter is 0
/// (libsrtp's rule: the estimate would otherwise roll back to 2³² − 1).
struct SRTPIndexWindow: Equatable, Sendable {
    /// The highest index seen (0 before the first packet).
    private(set) var highest: UInt64 = 0
    /// Bit k: index `highest − k` was seen.
    private var seen = [UInt64](repeating: 0, count: size / 64)
    /// libsrtp's window (the sessions' `window_size`).
    static let size = 1024

    /// What the window says of a packet.
    enum Verdict: Equatable {
        /// Beyond the highest, or within the window and not seen.
        case new
        /// Within the window and seen already.
        case replayed
        /// `size` or more behind the highest.
        case tooOld
    }

    /// A packet numbered `sequence`: its index, how far past the highest it lies, and the verdict.
    func estimate(_ sequence: UInt16) -> (index: UInt64, delta: Int64, verdict: Verdict) {
        let (index, delta) = guess(sequence)
        return (index, delta, verdict(delta))
    }

    /// A packet we send numbered `sequence`: its index, the highest from now on; nil when it lies
    /// a whole window behind (libsrtp refuses it). A repeat is allowed (libsrtp's
    /// `allow_repeat_tx`), so what was sent need not be remembered.
    mutating func send(_ sequence: UInt16) -> UInt64? {
        let (index, delta) = guess(sequence)
        guard -delta < Int64(Self.size) else { return nil }
        if delta > 0 { highest = index }
        return index
    }

    private func guess(_ sequence: UInt16) -> (index: UInt64, delta: Int64) {
        let s = Int64(sequence)
        guard highest > 32_768 else { return (UInt64(sequence), s - Int64(highest)) }
        let roc = Int64(highest >> 16), local = Int64(highest & 0xFFFF)
        let (guessedROC, delta): (Int64, Int64)
        if local < 32_768 {
            (guessedROC, delta) = s - local > 32_768 ? (roc - 1, s - local - 65_536) : (roc, s - local)
        } else {
            (guessedROC, delta) = local - 32_768 > s ? (roc + 1, s - local + 65_536) : (roc, s - local)
        }
        return (UInt64(UInt32(truncatingIfNeeded: guessedROC)) << 16 | UInt64(sequence), delta)
    }

    private func verdict(_ delta: Int64) -> Verdict {
        guard delta <= 0 else { return .new }
        let behind = Int(-delta)
        guard behind < Self.size else { return .tooOld }
        return seen[behind / 64] & (1 << UInt64(behind % 64)) != 0 ? .replayed : .new
    }

    /// Records the packet `delta` past the highest (from `estimate`) as seen.
    mutating func add(index: UInt64, delta: Int64) {
        if delta > 0 {
            shift(by: Int(min(delta, Int64(Self.size))))
            highest = index
            seen[0] |= 1
        } else if -delta < Int64(Self.size) {
            let behind = Int(-delta)
            seen[behind / 64] |= 1 << UInt64(behind % 64)
        }
    }

    /// Moves every bit `count` places further from the highest (bits past the window drop off).
    private mutating func shift(by count: Int) {
        let words = count / 64, bits = count % 64
        for word in seen.indices.reversed() {
            let from = word - words
            var value: UInt64 = from >= 0 ? seen[from] << UInt64(bits) : 0
            if bits > 0, from - 1 >= 0 { value |= seen[from - 1] >> UInt64(64 - bits) }
            seen[word] = value
        }
    }
}
