/// What a pipe adds to a packet's way, from its echoes (`PipeMessage.echoRequest` every second,
/// answered at once by the far end): half the round-trip time, through both workers' event
/// loops as well as the network, smoothed as RFC 6298 §2 smooths an RTT (a new sample weighs
/// an eighth). Times are a monotonic clock's nanoseconds (the origin's own: the token it sent).
struct PipeDelay: Equatable, Sendable {
    /// The smoothed one-way delay, in nanoseconds; nil before the first echo.
    private(set) var oneWayNanoseconds: UInt64?
    /// An echo older than this (or from the future) is no answer to a recent request: ignored.
    static let longestRoundTrip: UInt64 = 10_000_000_000

    /// An echo of the request sent at `sentAt` came back at `now`.
    /// - Returns: whether it was taken.
    @discardableResult
    mutating func echoed(sentAt: UInt64, now: UInt64) -> Bool {
        guard now >= sentAt, now - sentAt <= Self.longestRoundTrip else { return false }
        let sample = (now - sentAt) / 2
        guard let current = oneWayNanoseconds else {
            oneWayNanoseconds = sample
            return true
        }
        // current + (sample − current) / 8, without going below zero in unsigned arithmetic.
        oneWayNanoseconds = sample >= current ? current + (sample - current) / 8 : current - (current - sample) / 8
        return true
    }

    /// In seconds, for `/metrics`.
    var oneWaySeconds: Double? { oneWayNanoseconds.map { Double($0) / 1e9 } }
}
