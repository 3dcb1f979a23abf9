import StageSFU
import StageWire

/// What the SFU knows of one stream a publisher sends (one SSRC): its reception statistics,
/// reported back in receiver reports (RFC 3550 §6.4.2) so the publisher sees its loss and
/// jitter and, through LSR/DLSR, its round trip. A class: the route table holds it and the
/// per-packet path updates it in place.
final class IncomingStream {
    private(set) var statistics: ReceiverStatistics

    init(ssrc: UInt32, kind: MediaKind) {
        statistics = ReceiverStatistics(ssrc: ssrc, clockRate: kind == .audio ? 48_000 : 90_000)
    }

    func received(_ header: RTPHeader, now: ContinuousClock.Instant) {
        statistics.record(sequenceNumber: header.sequenceNumber, rtpTimestamp: header.timestamp, arrivalMicros: Self.micros(now))
    }

    func senderReport(_ report: RTCPSenderReport, now: ContinuousClock.Instant) {
        statistics.recordSenderReport(report, arrivalMicros: Self.micros(now))
    }

    /// The report block for the next receiver report; nil before the first packet.
    func reportBlock(now: ContinuousClock.Instant) -> RTCPReceptionReport? {
        statistics.makeReportBlock(nowMicros: Self.micros(now))
    }

    private static let epoch = ContinuousClock.now

    /// Microseconds since the process's first use of this type: the arrival clock of the
    /// statistics, and of transport-cc feedback (`TransportFeedbackSender`).
    static func micros(_ instant: ContinuousClock.Instant) -> UInt64 {
        let elapsed = instant - epoch
        return UInt64(max(0, elapsed.components.seconds)) * 1_000_000 + UInt64(max(0, elapsed.components.attoseconds / 1_000_000_000_000))
    }
}
