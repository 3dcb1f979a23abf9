/// The SRTP packet index (RFC 3711 §3.3.1: rollover counter × 65,536 + sequence number) a
/// sender gives each packet of one SSRC, estimated from the highest index sent so far as in
/// RFC 3711 Appendix A and as libsrtp estimates it, so a receiver's guess matches: a sequence
/// number behind the highest (a resent packet) keeps the counter it was first sent with, and
/// until an index past 32,768 has been sent the counter is 0 (libsrtp's rule: the estimate
/// would otherwise roll back to 2³² − 1). A packet more than `window` behind the highest is
/// refused, as libsrtp's replay window refuses it.
struct SRTPSendIndex: Equatable, Sendable {
    /// The highest index sent (0 before the first packet).
    private(set) var highest: UInt64 = 0
    /// libsrtp's replay window for what we send (the session's `window_size`).
    static let window: Int64 = 1024

    /// The index of a packet numbered `sequence`, and the highest index from now on; nil when
    /// it lies more than `window` behind the highest.
    mutating func index(of sequence: UInt16) -> UInt64? {
        let (guess, delta) = estimate(sequence)
        guard delta + Self.window >= 0 else { return nil }
        if delta > 0 { highest = guess }
        return guess
    }

    private func estimate(_ sequence: UInt16) -> (index: UInt64, delta: Int64) {
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
}
