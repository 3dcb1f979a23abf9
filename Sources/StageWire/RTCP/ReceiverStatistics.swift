/// What a receiver reports about one incoming stream (one SSRC) in its RTCP report blocks
/// (RFC 3550 §6.4.1): extended highest sequence number and validity per Appendix A.1,
/// cumulative and fractional loss per A.3, interarrival jitter per A.8, and LSR/DLSR from the
/// last Sender Report so the sender can measure the round trip.
///
/// Unlike A.1 there is no probation: the SSRC comes from signaling, so the first packet counts
/// (as libwebrtc does). A jump of more than `maxDropout` is taken as a restart only when the
/// next packet follows it (A.1 `bad_seq`). Jitter is updated by in-order packets carrying a new
/// timestamp, so the packets of one video frame, sent back to back, do not inflate it (libwebrtc
/// does the same).
public struct ReceiverStatistics: Sendable {
    /// A.1 MAX_DROPOUT: a forward jump up to this many is ordinary loss.
    public static let maxDropout: UInt16 = 3000
    /// A.1 MAX_MISORDER: a packet up to this many behind is a late or duplicate packet.
    public static let maxMisorder: UInt16 = 100
    private static let sequenceModulus: UInt32 = 1 << 16

    public let ssrc: UInt32
    /// Ticks per second of the stream's RTP timestamps (90 000 for video, 48 000 for Opus).
    public let clockRate: UInt32

    private var started = false
    private var maxSequence: UInt16 = 0
    private var cycles: UInt32 = 0
    private var baseSequence: UInt32 = 0
    private var badSequence: UInt32 = ReceiverStatistics.sequenceModulus + 1
    /// Packets counted as received (A.1 `received`; duplicates included, as the RFC counts them).
    public private(set) var packetsReceived: Int64 = 0
    private var expectedPrior: Int64 = 0
    private var receivedPrior: Int64 = 0

    private var lastTransit: UInt32?
    private var lastTimestamp: UInt32 = 0
    /// The A.8 estimate in timestamp units, unrounded.
    public private(set) var jitterEstimate: Double = 0

    private var lastSenderReport: UInt32 = 0
    private var lastSenderReportArrivalMicros: UInt64?

    public init(ssrc: UInt32, clockRate: UInt32) {
        self.ssrc = ssrc
        self.clockRate = clockRate
    }

    /// The extended highest sequence number received: cycles × 2^16 + highest (A.3).
    public var extendedHighestSequenceNumber: UInt32 { cycles &+ UInt32(maxSequence) }

    /// Packets expected since the first: extended highest − base + 1 (A.3).
    public var packetsExpected: Int64 {
        started ? Int64(cycles) + Int64(maxSequence) - Int64(baseSequence) + 1 : 0
    }

    /// Expected minus received; negative when duplicates outnumber losses (A.3).
    public var cumulativeLost: Int64 { packetsExpected - packetsReceived }

    /// Interarrival jitter in timestamp units, as reported (A.8).
    public var jitter: UInt32 { UInt32(min(jitterEstimate, Double(UInt32.max))) }

    /// Records one received packet.
    /// - Parameters:
    ///   - sequenceNumber, rtpTimestamp: from its header.
    ///   - arrivalMicros: when it arrived, on any monotonic clock in µs.
    /// - Returns: `false` when A.1 does not count it: a jump beyond `maxDropout` not yet
    ///   confirmed by the next packet.
    @discardableResult
    public mutating func record(sequenceNumber: UInt16, rtpTimestamp: UInt32, arrivalMicros: UInt64) -> Bool {
        guard started else {
            started = true
            restart(at: sequenceNumber)
            packetsReceived = 1
            updateJitter(rtpTimestamp: rtpTimestamp, arrivalMicros: arrivalMicros)
            return true
        }
        let delta = sequenceNumber &- maxSequence
        var inOrder = false
        if delta < Self.maxDropout {
            // In order, with a permissible gap (delta 0 is a duplicate of the highest).
            if sequenceNumber < maxSequence { cycles &+= Self.sequenceModulus }
            inOrder = delta > 0
            maxSequence = sequenceNumber
        } else if delta <= UInt16(Self.sequenceModulus - UInt32(Self.maxMisorder)) {
            // A very large jump: a restart if the previous packet predicted this one.
            guard UInt32(sequenceNumber) == badSequence else {
                badSequence = (UInt32(sequenceNumber) + 1) & (Self.sequenceModulus - 1)
                return false
            }
            restart(at: sequenceNumber)
            lastTransit = nil
            inOrder = true
        }
        // Otherwise a duplicate or reordered packet: counted, nothing else changes.
        packetsReceived += 1
        if inOrder { updateJitter(rtpTimestamp: rtpTimestamp, arrivalMicros: arrivalMicros) }
        return true
    }

    /// Records a Sender Report from this source, for LSR and DLSR (RFC 3550 §6.4.1).
    /// - Parameters:
    ///   - ntpTime: the SR's 64-bit NTP timestamp.
    ///   - arrivalMicros: when the SR arrived, on the clock later passed to `makeReportBlock`.
    public mutating func recordSenderReport(ntpTime: UInt64, arrivalMicros: UInt64) {
        lastSenderReport = RTCPTiming.compact(ntpTime: ntpTime)
        lastSenderReportArrivalMicros = arrivalMicros
    }

    /// Records a Sender Report from this source; see `recordSenderReport(ntpTime:arrivalMicros:)`.
    public mutating func recordSenderReport(_ report: RTCPSenderReport, arrivalMicros: UInt64) {
        recordSenderReport(ntpTime: report.ntpTime, arrivalMicros: arrivalMicros)
    }

    /// The report block for the next RR or SR (RFC 3550 §6.4.1, A.3). Starts a new reporting
    /// interval: the fraction lost covers the packets since the previous call.
    /// - Parameter nowMicros: the time the report is sent, on the `recordSenderReport` clock.
    /// - Returns: `nil` before the first packet (nothing to report on).
    public mutating func makeReportBlock(nowMicros: UInt64) -> RTCPReceptionReport? {
        guard started else { return nil }
        let expected = packetsExpected
        let expectedInterval = expected - expectedPrior
        expectedPrior = expected
        let receivedInterval = packetsReceived - receivedPrior
        receivedPrior = packetsReceived
        let lostInterval = expectedInterval - receivedInterval
        let fraction = expectedInterval <= 0 || lostInterval <= 0 ? 0 : min((lostInterval << 8) / expectedInterval, 255)

        let lost = min(max(cumulativeLost, Int64(RTCPReceptionReport.cumulativeLostRange.lowerBound)),
                       Int64(RTCPReceptionReport.cumulativeLostRange.upperBound))
        var delay: UInt32 = 0
        if let arrival = lastSenderReportArrivalMicros {
            delay = RTCPTiming.compactDuration(micros: nowMicros >= arrival ? nowMicros - arrival : 0)
        }
        return RTCPReceptionReport(
            ssrc: ssrc, fractionLost: UInt8(fraction), cumulativeLost: Int32(lost),
            extendedHighestSequenceNumber: extendedHighestSequenceNumber, jitter: jitter,
            lastSenderReport: lastSenderReport, delaySinceLastSenderReport: delay)
    }

    /// A.1 `init_seq`: a new base, counters cleared.
    private mutating func restart(at sequenceNumber: UInt16) {
        baseSequence = UInt32(sequenceNumber)
        maxSequence = sequenceNumber
        badSequence = Self.sequenceModulus + 1
        cycles = 0
        packetsReceived = 0
        receivedPrior = 0
        expectedPrior = 0
    }

    /// A.8: D = (Rj − Ri) − (Sj − Si) in timestamp units, J += (|D| − J) / 16. Wrapping 32-bit
    /// arithmetic keeps it right across timestamp and clock wraparound.
    private mutating func updateJitter(rtpTimestamp: UInt32, arrivalMicros: UInt64) {
        let arrival = RTPClock.ticks(micros: arrivalMicros, clockRate: clockRate)
        let transit = arrival &- rtpTimestamp
        defer {
            lastTransit = transit
            lastTimestamp = rtpTimestamp
        }
        guard let previous = lastTransit, rtpTimestamp != lastTimestamp else { return }
        let difference = Int32(bitPattern: transit &- previous).magnitude
        jitterEstimate += (Double(difference) - jitterEstimate) / 16
    }
}
