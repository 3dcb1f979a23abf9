import NIOCore
@testable import StageTransport
import StageWire

/// Packets built by hand, for tests that send what a well-behaved peer would not: arbitrary
/// RTP and RTCP protected with the peer's keys, and Binding requests to send more than once.
extension HandDrivenPeer {
    /// `plain` protected as SRTP (or SRTCP when `rtcp`) with this peer's keys; nil before DTLS
    /// or when libsrtp refuses it.
    func protect(_ plain: [UInt8], rtcp: Bool = false) -> [UInt8]? {
        guard let srtp else { return nil }
        var packet = plain + [UInt8](repeating: 0, count: SRTPSession.maxRTCPTrailer)
        let length = packet.withUnsafeMutableBytes { bytes in
            try? rtcp ? srtp.protectRTCP(bytes, length: plain.count) : srtp.protectRTP(bytes, length: plain.count)
        }
        return length.map { Array(packet[0..<$0]) }
    }

    /// A plain RTP packet: a 12-byte header (`first` carries V=2 and the P and X bits),
    /// `extensionBlock` after it when X is set, then `payload`.
    static func rtp(first: UInt8 = 0x80, payloadType: UInt8 = 96, sequence: UInt16, ssrc: UInt32,
                    extensionBlock: [UInt8] = [], payload: [UInt8] = [UInt8](repeating: 0xAB, count: 100)) -> [UInt8] {
        [first, payloadType, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 0, 0x10, 0,
         UInt8(ssrc >> 24), UInt8((ssrc >> 16) & 0xFF), UInt8((ssrc >> 8) & 0xFF), UInt8(ssrc & 0xFF)] + extensionBlock + payload
    }

    /// The one-byte-header extension block (RFC 8285 §4.2) holding one element.
    static func extensionBlock(id: UInt8, value: [UInt8]) -> [UInt8] {
        var element = [id << 4 | UInt8(value.count - 1)] + value
        while element.count % 4 != 0 { element.append(0) }
        return [0xBE, 0xDE, 0, UInt8(element.count / 4)] + element
    }

    /// A PLI (RFC 4585 §6.3.1) for `media`.
    static func pli(media: UInt32) -> [UInt8] {
        [0x81, 206, 0, 2, 0, 0, 0, 1] + bigEndian(media)
    }

    /// A generic NACK (RFC 4585 §6.2.1) for one sequence number of `media`.
    static func nack(media: UInt32, sequence: UInt16) -> [UInt8] {
        [0x81, 205, 0, 3, 0, 0, 0, 1] + bigEndian(media) + [UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 0]
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    /// The Binding request `check` sends, as bytes, with a transaction ID of the caller's.
    func checkRequest(answer: Answer, useCandidate: Bool, transactionID: STUNTransactionID = .random(),
                      password: String? = nil) -> [UInt8] {
        var builder = STUNMessageBuilder(type: .bindingRequest, transactionID: transactionID)
        try? builder.appendUsername("\(answer.ufrag):\(credentials.ufrag)")
        builder.appendPriority(0x6E00_00FF)
        builder.appendICEControlling(tieBreaker: 7)
        if useCandidate { builder.appendUseCandidate() }
        return builder.finish(integrityKey: STUNMessage.shortTermKey(password: password ?? answer.password), hmacSHA1: MediaEngine.hmacSHA1)
    }
}
