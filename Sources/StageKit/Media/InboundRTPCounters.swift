import StageMedia
import StageWire

/// What every received stream counts: RFC 3550 reception statistics (for receiver reports and
/// `inbound-rtp` stats) and the bytes received.
struct InboundRTPCounters {
    let clockRate: UInt32
    private(set) var statistics: ReceiverStatistics?
    private(set) var bytesReceived = 0

    init(clockRate: UInt32) { self.clockRate = clockRate }

    var ssrc: UInt32? { statistics?.ssrc }

    mutating func record(_ header: RTPHeader, packetSize: Int, nowMicros: UInt64) {
        if statistics?.ssrc != header.ssrc { statistics = ReceiverStatistics(ssrc: header.ssrc, clockRate: clockRate) }
        statistics?.record(sequenceNumber: header.sequenceNumber, rtpTimestamp: header.timestamp, arrivalMicros: nowMicros)
        bytesReceived += packetSize
    }

    mutating func reportBlock(nowMicros: UInt64) -> RTCPReceptionReport? { statistics?.makeReportBlock(nowMicros: nowMicros) }

    mutating func senderReport(_ report: RTCPSenderReport, nowMicros: UInt64) {
        guard report.ssrc == statistics?.ssrc else { return }
        statistics?.recordSenderReport(report, arrivalMicros: nowMicros)
    }

    /// The `inbound-rtp` members every kind has (jitter in seconds).
    func statsValues(kind: MediaKind) -> [String: RTCStats.Value] {
        ["kind": .string(kind.rawValue), "ssrc": .number(Double(ssrc ?? 0)),
         "packetsReceived": .number(Double(statistics?.packetsReceived ?? 0)),
         "packetsLost": .number(Double(statistics?.cumulativeLost ?? 0)),
         "jitter": .number((statistics?.jitterEstimate ?? 0) / Double(clockRate)),
         "bytesReceived": .number(Double(bytesReceived))]
    }
}
