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

    func received(_ header: RTPHeader, now: PacketTime) {
        statistics.record(sequenceNumber: header.sequenceNumber, rtpTimestamp: header.timestamp, arrivalMicros: now.microseconds)
    }

    func senderReport(_ report: RTCPSenderReport, now: PacketTime) {
        statistics.recordSenderReport(report, arrivalMicros: now.microseconds)
    }

    /// The report block for the next receiver report; nil before the first packet.
    func reportBlock(now: PacketTime) -> RTCPReceptionReport? {
        statistics.makeReportBlock(nowMicros: now.microseconds)
    }
}
