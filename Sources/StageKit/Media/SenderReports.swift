import StageMedia
import StageWire

/// RTCP Sender Reports (RFC 3550 §6.4.1): wall-clock time against RTP time, so the server can
/// translate them for subscribers and their players keep audio and video in sync.
enum SenderReports {
    static func make(writer: RTPPacketWriter, rtpTime: UInt32) -> [UInt8] {
        let report = RTCPSenderReport(ssrc: writer.ssrc, ntpTime: MediaClock.ntpNow(), rtpTime: rtpTime,
                                      packetCount: writer.packetCount, octetCount: writer.octetCount, reports: [])
        return (try? RTCPPacket.serializeCompound([.senderReport(report)])) ?? []
    }
}
