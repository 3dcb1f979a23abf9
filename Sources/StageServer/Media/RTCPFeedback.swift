/// The RTCP feedback messages the SFU writes and reads (RFC 4585 §6.3.1 PLI, RFC 5104 §4.3.1 FIR).
enum RTCPFeedback {
    /// A Picture Loss Indication: V=2, FMT=1, PT=206 (PSFB), length 2, sender and media SSRC.
    static func pictureLossIndication(sender: UInt32, media: UInt32) -> [UInt8] {
        [0x81, 206, 0x00, 0x02] + bigEndian(sender) + bigEndian(media)
    }

    /// A Receiver Estimated Maximum Bitrate message (draft-alvestrand-rmcat-remb-03 §2.2):
    /// PSFB (PT 206) with FMT 15, "REMB", the bitrate as an 18-bit mantissa and 6-bit exponent.
    static func receiverEstimatedMaximumBitrate(sender: UInt32, bitsPerSecond: UInt64, ssrcs: [UInt32]) -> [UInt8] {
        var exponent: UInt64 = 0
        var mantissa = bitsPerSecond
        while mantissa >= 1 << 18 {
            mantissa >>= 1
            exponent += 1
        }
        let words = 4 + ssrcs.count   // after the first header word: sender, media(0), "REMB", num+BR, SSRCs
        var packet: [UInt8] = [0x8F, 206, UInt8(words >> 8), UInt8(words & 0xFF)] + bigEndian(sender) + bigEndian(0)
        packet += Array("REMB".utf8)
        packet += [UInt8(ssrcs.count), UInt8(exponent << 2 | mantissa >> 16), UInt8(mantissa >> 8 & 0xFF), UInt8(mantissa & 0xFF)]
        for ssrc in ssrcs { packet += bigEndian(ssrc) }
        return packet
    }

    /// Media SSRCs for which a compound packet asks for a keyframe (PLI, or FIR entries).
    static func keyframeRequests(in packet: UnsafeRawBufferPointer) -> [UInt32] {
        var ssrcs: [UInt32] = []
        var offset = 0
        while offset + 4 <= packet.count {
            let first = packet[offset], type = packet[offset + 1]
            let length = ((Int(packet[offset + 2]) << 8 | Int(packet[offset + 3])) + 1) * 4
            guard first >> 6 == 2, offset + length <= packet.count else { break }
            let format = first & 0x1F
            if type == 206, format == 1, length >= 12 {
                ssrcs.append(word(packet, offset + 8))
            } else if type == 206, format == 4 {
                var entry = offset + 12
                while entry + 8 <= offset + length {
                    ssrcs.append(word(packet, entry))
                    entry += 8
                }
            }
            offset += length
        }
        return ssrcs
    }

    /// Generic NACKs (RFC 4585 §6.2.1: PT 205, FMT 1) in a compound packet: media SSRC → lost
    /// sequence numbers (each FCI is a PID and a bitmask of the 16 following).
    static func negativeAcknowledgements(in packet: UnsafeRawBufferPointer) -> [(ssrc: UInt32, lost: [UInt16])] {
        var result: [(ssrc: UInt32, lost: [UInt16])] = []
        var offset = 0
        while offset + 4 <= packet.count {
            let first = packet[offset], type = packet[offset + 1]
            let length = ((Int(packet[offset + 2]) << 8 | Int(packet[offset + 3])) + 1) * 4
            guard first >> 6 == 2, offset + length <= packet.count else { break }
            if type == 205, first & 0x1F == 1, length >= 16 {
                var lost: [UInt16] = []
                var fci = offset + 12
                while fci + 4 <= offset + length {
                    let pid = UInt16(packet[fci]) << 8 | UInt16(packet[fci + 1])
                    let mask = UInt16(packet[fci + 2]) << 8 | UInt16(packet[fci + 3])
                    lost.append(pid)
                    for bit in 0..<16 where mask & (1 << bit) != 0 { lost.append(pid &+ UInt16(bit + 1)) }
                    fci += 4
                }
                result.append((word(packet, offset + 8), lost))
            }
            offset += length
        }
        return result
    }

    private static func word(_ p: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        UInt32(p[at]) << 24 | UInt32(p[at + 1]) << 16 | UInt32(p[at + 2]) << 8 | UInt32(p[at + 3])
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
