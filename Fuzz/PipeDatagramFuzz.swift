// libFuzzer target for a pipe's receive path (StageTransport's PipeDatagram.open: RFC 5761
// classification, SRTP unprotection (SRTPAEAD on OpenSSL) and SRTCP's (libsrtp), the RTP
// header check). Build and run with scripts/fuzz.sh (swiftc -sanitize=fuzzer,address; libsrtp2
// and OpenSSL themselves are not instrumented).
//
// Fresh sessions per input (fixed keys, so a crash reproduces). Byte 0 picks the check, the
// rest is the datagram or the plaintext:
// 0. the rest as a datagram: refused (nothing unauthenticated is taken);
// 1. the rest protected by the far end as its kind (RTP or RTCP by RFC 5761 §4), when it can
//    be (RTP by SRTPAEAD on OpenSSL, RTCP by libsrtp): opened to the same bytes (RTP only when
//    its header parses, else pipe_malformed), and the same datagram again is a replay;
// 2. as 1, then one byte (at byte 1 of the input, xor byte 2, not 0) changed: refused.
import StageWire

private let forA = SRTPKeyingMaterial(profile: .aeadAes128Gcm, local: (1...28).map { UInt8($0) }, remote: (101...128).map { UInt8($0) })
private let forB = SRTPKeyingMaterial(profile: .aeadAes128Gcm, local: forA.remote, remote: forA.local)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPipeDatagram(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let mode = input.first, let receiving = try? SRTPSession(forA), let sending = try? SRTPSession(forB) else { return 0 }
    var rest = Array(input.dropFirst(mode % 3 == 2 ? 3 : 1))
    switch mode % 3 {
    case 0:
        let opened = rest.withUnsafeMutableBytes { PipeDatagram.open($0, with: receiving) }
        guard case .refused = opened else { fatalError("an unauthenticated datagram was taken: \(opened)") }
    default:
        let plain = rest
        let rtcp = Demux.classify(plain) == .rtcp
        var buffer = plain + [UInt8](repeating: 0, count: SRTPSession.maxRTCPTrailer)
        guard let length = try? buffer.withUnsafeMutableBytes({ bytes in
            rtcp ? try sending.protectRTCP(bytes, length: plain.count) : try sending.protectRTP(bytes, length: plain.count)
        }) else { return 0 }
        rest = Array(buffer.prefix(length))
        if mode % 3 == 2 {
            guard input.count >= 3, !rest.isEmpty, input[2] != 0 else { return 0 }
            rest[Int(input[1]) % rest.count] ^= input[2]
            let opened = rest.withUnsafeMutableBytes { PipeDatagram.open($0, with: receiving) }
            guard case .refused = opened else { fatalError("a changed datagram was taken: \(opened)") }
            return 0
        }
        var copy = rest
        let opened = copy.withUnsafeMutableBytes { PipeDatagram.open($0, with: receiving) }
        let kind = Demux.classify(plain)
        let expected: PipeDatagram.Opened
        if kind == .rtcp, plain.count >= PipeDatagram.rtcpHeaderLength {
            expected = .rtcp(length: plain.count)
        } else if kind == .rtp, plain.withUnsafeBytes({ (try? RTPHeader.parse($0)) != nil }) {
            expected = .rtp(length: plain.count)
        } else {
            // libsrtp protected what the pipe does not take (RTCP shorter than its header, an
            // RTP header that does not parse): refused, whichever reason.
            guard case .refused = opened else { fatalError("taken though malformed: \(opened)") }
            return 0
        }
        guard opened == expected else { fatalError("protected \(kind) opened as \(opened), expected \(expected)") }
        guard Array(copy.prefix(plain.count)) == plain else { fatalError("decrypted bytes differ from the plaintext") }
        var again = rest
        let replayed = again.withUnsafeMutableBytes { PipeDatagram.open($0, with: receiving) }
        guard replayed == .refused(.pipeReplay) else { fatalError("a replay opened as \(replayed)") }
    }
    return 0
}
