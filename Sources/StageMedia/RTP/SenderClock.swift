public import StageWire

/// Maps a received stream's RTP timestamps to the sender's wall clock, from its latest RTCP
/// sender report (RFC 3550 §6.4.1: the SR pairs an NTP time with the RTP time of the same
/// instant). Audio and video of one sender share that wall clock, which is how a receiver
/// lines them up (lip sync) whatever each path's delay.
public struct SenderClock: Sendable, Equatable {
    public let clockRate: UInt32
    private var reference: (ntpMicros: UInt64, rtpTime: UInt32)?

    public init(clockRate: UInt32) {
        self.clockRate = clockRate
    }

    public var isSynchronized: Bool { reference != nil }

    public mutating func update(_ report: RTCPSenderReport) {
        let seconds = report.ntpTime >> 32
        guard seconds >= RTCPTiming.unixEpochOffsetSeconds else { return }
        let fraction = report.ntpTime & 0xFFFF_FFFF
        let micros = (seconds - RTCPTiming.unixEpochOffsetSeconds) * 1_000_000 + (fraction * 1_000_000) >> 32
        reference = (micros, report.rtpTime)
    }

    /// The sender's wall-clock time (µs since 1970) of the instant an RTP timestamp stands
    /// for; nil before the first sender report. Timestamps within half the 32-bit range of the
    /// report's, before or after it, are placed correctly across wrap-around.
    public func senderMicros(rtpTime: UInt32) -> UInt64? {
        guard let reference else { return nil }
        let ticks = Int64(Int32(bitPattern: rtpTime &- reference.rtpTime))
        let offset = ticks * 1_000_000 / Int64(clockRate)
        let micros = Int64(reference.ntpMicros) + offset
        return micros < 0 ? nil : UInt64(micros)
    }

    public static func == (a: SenderClock, b: SenderClock) -> Bool {
        a.clockRate == b.clockRate && a.reference?.ntpMicros == b.reference?.ntpMicros && a.reference?.rtpTime == b.reference?.rtpTime
    }
}
