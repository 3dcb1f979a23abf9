import StageTransport
import StageWire

/// The RTCP feedback the SFU writes and reads, through StageWire's parsers (RFC 4585 §6.2.1
/// NACK and §6.3.1 PLI, RFC 5104 §4.3.1 FIR, draft-alvestrand-rmcat-remb-03 REMB,
/// draft-holmer-rmcat-transport-wide-cc-extensions-01 transport-cc).
enum RTCPFeedback {
    /// What a subscriber's compound packet asks of the SFU.
    struct Requests {
        /// Media SSRCs that need a keyframe (PLI, or FIR entries).
        var keyframes: [UInt32] = []
        /// Media SSRC → lost sequence numbers.
        var lost: [(ssrc: UInt32, sequences: [UInt16])] = []
        /// Report blocks of its receiver (or sender) reports: loss per stream we send.
        var reports: [RTCPReceptionReport] = []
        /// Its own estimate of its downlink (REMB), in bits per second.
        var estimate: UInt64?
        /// When what we sent it arrived (transport-cc).
        var arrivals: [RTCPTransportCCFeedback] = []
    }

    /// Every packet of a compound it can read; a malformed one is skipped, as libwebrtc does,
    /// and a broken length field ends the walk. Each is counted (`malformed_rtcp`).
    static func packets(in compound: UnsafeRawBufferPointer) -> [RTCPPacket] {
        var packets: [RTCPPacket] = []
        var iterator = RTCPCompoundIterator(compound)
        while true {
            let before = iterator.offset
            do {
                guard let packet = try iterator.next() else { break }
                packets.append(packet)
            } catch {
                MediaDropReason.malformedRTCP.count()
                if iterator.offset == before { break }
            }
        }
        return packets
    }

    /// What a subscriber's compound packet asks of the SFU.
    static func requests(in compound: UnsafeRawBufferPointer) -> Requests {
        var requests = Requests()
        for packet in packets(in: compound) {
            switch packet {
            case .pictureLossIndication(let pli): requests.keyframes.append(pli.mediaSSRC)
            case .fullIntraRequest(let fir): requests.keyframes += fir.entries.map(\.ssrc)
            case .genericNACK(let nack): requests.lost.append((nack.mediaSSRC, nack.lostSequenceNumbers))
            case .receiverReport(let report): requests.reports += report.reports
            case .senderReport(let report): requests.reports += report.reports
            case .receiverEstimatedMaxBitrate(let remb): requests.estimate = remb.bitrate
            case .transportCCFeedback(let feedback): requests.arrivals.append(feedback)
            default: break
            }
        }
        return requests
    }

    /// The Sender Reports of a publisher's compound packet.
    static func senderReports(in compound: UnsafeRawBufferPointer) -> [RTCPSenderReport] {
        packets(in: compound).compactMap { if case .senderReport(let report) = $0 { report } else { nil } }
    }

    static func senderReport(ssrc: UInt32, ntpTime: UInt64, rtpTime: UInt32, packets: UInt32, octets: UInt32) -> [UInt8] {
        (try? RTCPPacket.senderReport(.init(ssrc: ssrc, ntpTime: ntpTime, rtpTime: rtpTime, packetCount: packets,
                                            octetCount: octets)).serialized()) ?? []
    }

    static func pictureLossIndication(sender: UInt32, media: UInt32) -> [UInt8] {
        (try? RTCPPacket.pictureLossIndication(.init(senderSSRC: sender, mediaSSRC: media)).serialized()) ?? []
    }

    static func genericNACK(sender: UInt32, media: UInt32, lost: [UInt16]) -> [UInt8] {
        (try? RTCPPacket.genericNACK(.init(senderSSRC: sender, mediaSSRC: media, lostSequenceNumbers: lost)).serialized()) ?? []
    }

    /// A receiver report (RFC 3550 §6.4.2; at most 31 blocks) followed by a REMB for the video
    /// SSRCs, when there are any.
    static func receiverFeedback(sender: UInt32, reports: [RTCPReceptionReport], bitsPerSecond: UInt64, estimateSSRCs: [UInt32]) -> [UInt8] {
        var packets: [RTCPPacket] = [.receiverReport(.init(ssrc: sender, reports: Array(reports.prefix(31))))]
        if !estimateSSRCs.isEmpty {
            packets.append(.receiverEstimatedMaxBitrate(.init(senderSSRC: sender, bitrate: bitsPerSecond, ssrcs: estimateSSRCs)))
        }
        return (try? RTCPPacket.serializeCompound(packets)) ?? []
    }
}
