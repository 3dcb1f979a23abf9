@testable import StageSFU

/// A consumer's transport in tests: keeps the rewritten copy of each packet it is sent, the
/// Sender Reports, and how often the producer closed.
final class RecordingTransport: ConsumerTransport {
    var packets: [[UInt8]] = []
    /// Answers to NACKs when they are kept apart (`repairsApart`); else they are in `packets`.
    var repairs: [[UInt8]] = []
    var reports: [(ssrc: UInt32, ntp: UInt64, rtp: UInt32, packets: UInt32, octets: UInt32)] = []
    var producerClosures = 0
    private let repairsApart: Bool
    /// The copy a consumer rewrites (the whole packet; the server's writer drops extensions).
    private let copy: (UnsafeRawBufferPointer) -> [UInt8]

    init(repairsApart: Bool = false, copy: @escaping (UnsafeRawBufferPointer) -> [UInt8] = { Array($0) }) {
        self.repairsApart = repairsApart
        self.copy = copy
    }

    func send(_ packet: UnsafeRawBufferPointer, rewrite: (UnsafeMutableRawBufferPointer) -> Void) -> Bool {
        packets.append(rewritten(packet, rewrite))
        return true
    }

    func sendRepair(_ packet: UnsafeRawBufferPointer, rewrite: (UnsafeMutableRawBufferPointer) -> Void) -> Bool {
        guard repairsApart else { return send(packet, rewrite: rewrite) }
        repairs.append(rewritten(packet, rewrite))
        return true
    }

    func sendSenderReport(ssrc: UInt32, ntpTime: UInt64, rtpTime: UInt32, packets: UInt32, octets: UInt32) {
        reports.append((ssrc, ntpTime, rtpTime, packets, octets))
    }

    func producerClosed(for consumer: Consumer) {
        producerClosures += 1
    }

    private func rewritten(_ packet: UnsafeRawBufferPointer, _ rewrite: (UnsafeMutableRawBufferPointer) -> Void) -> [UInt8] {
        var bytes = copy(packet)
        bytes.withUnsafeMutableBytes(rewrite)
        return bytes
    }
}
