import Testing
import StageWire

/// RFC 7983 §7 first-byte ranges and RFC 5761 §4 RTP/RTCP split, at every boundary.
@Suite struct DemuxTests {
    @Test(arguments: [
        (UInt8(0), DatagramKind.stun), (3, .stun), (4, .unknown), (15, .unknown),
        (16, .zrtp), (19, .zrtp), (20, .dtls), (22, .dtls), (63, .dtls),
        (64, .turnChannel), (79, .turnChannel), (80, .unknown), (127, .unknown),
        (128, .rtp), (144, .rtp), (191, .rtp), (192, .unknown), (255, .unknown),
    ])
    func rfc7983Section7FirstByte(_ first: UInt8, _ kind: DatagramKind) {
        // Second byte 96: an RTP payload type, so the RTP range reads as RTP.
        #expect(Demux.classify([first, 96, 0, 0]) == kind)
    }

    @Test(arguments: [
        (UInt8(96), DatagramKind.rtp),   // VP8, no marker
        (224, .rtp),                      // payload type 96 with the marker bit
        (111, .rtp), (191, .rtp),
        (192, .rtcp), (200, .rtcp),       // SR
        (201, .rtcp), (205, .rtcp), (206, .rtcp), (223, .rtcp),
    ])
    func rfc5761Section4SecondByte(_ second: UInt8, _ kind: DatagramKind) {
        #expect(Demux.classify([0x80, second, 0, 1]) == kind)
        [0x80, second].withUnsafeBytes { #expect(Demux.classify($0) == kind) }
    }

    @Test func emptyAndOneByteDatagrams() {
        #expect(Demux.classify([UInt8]()) == .unknown)
        #expect(Demux.classify([UInt8(0x80)]) == .unknown)
        #expect(Demux.classify([UInt8(0x00)]) == .stun)
        #expect(Demux.classify(UnsafeRawBufferPointer(start: nil, count: 0)) == .unknown)
    }

    @Test func dropDecisionsAndNames() {
        #expect(DatagramKind.zrtp.isDropped && DatagramKind.turnChannel.isDropped && DatagramKind.unknown.isDropped)
        #expect(!DatagramKind.stun.isDropped && !DatagramKind.rtp.isDropped)
        #expect(DatagramKind.turnChannel.description == "turn-channel")
    }
}
