import StageWire
import Testing

/// Runs `body` and returns the error of type `E` it throws, or nil; any other error is recorded as an issue.
func thrownError<E: Error, T>(_ type: E.Type, _ body: () throws -> T) -> E? {
    do {
        _ = try body()
        return nil
    } catch let error as E {
        return error
    } catch {
        Issue.record("unexpected error \(error)")
        return nil
    }
}

func rtpError<T>(_ body: () throws -> T) -> RTPError? { thrownError(RTPError.self, body) }
func rtcpError<T>(_ body: () throws -> T) -> RTCPError? { thrownError(RTCPError.self, body) }
func vp8Error<T>(_ body: () throws -> T) -> VP8Error? { thrownError(VP8Error.self, body) }

/// One row of a malformed-bytes table (pion's `TestUnmarshal_ErrorHandling`): a name citing the
/// rule broken, the bytes, and the error they must produce.
struct MediaMalformedCase<Failure: Error & Equatable>: Sendable, CustomTestStringConvertible {
    var name: String
    var bytes: [UInt8]
    var error: Failure
    var testDescription: String { name }
}

/// Every strict prefix of `bytes` (lengths 0 ..< bytes.count).
func mediaPrefixes(of bytes: [UInt8]) -> [[UInt8]] {
    (0..<bytes.count).map { Array(bytes.prefix($0)) }
}

/// Known packets shared by the RTP, RTCP and VP8 suites, as commented hex.
enum MediaFixtures {
    /// A WebRTC packet captured from Chrome (Wireshark dissection): AV1 (PT 45) with the one-byte
    /// extensions abs-send-time (ID 2), transport-cc (ID 4) and dependency descriptor (ID 13).
    static let chromeCapturedHeader: [UInt8] = [
        0x90, 0x2D, 0x1A, 0x5F,  // V=2 P=0 X=1 CC=0 | M=0 PT=45 | seq 6751
        0xD4, 0x09, 0x05, 0x49,  // timestamp 3557360969
        0xF7, 0xB1, 0x6E, 0x83,  // SSRC 0xF7B16E83
        0xBE, 0xDE, 0x00, 0x03,  // profile 0xBEDE (one-byte), length 3 words
        0x22, 0xF3, 0x43, 0x50,  // ID 2, L=2: abs-send-time 0xF34350
        0x41, 0x00, 0x9B,  //       ID 4, L=1: transport-wide seq 155
        0xD2, 0x81, 0x00, 0x45,  // ID 13, L=2: dependency descriptor 81 00 45
        0x00,  //                   padding
    ]

    /// A VP8 keyframe's first packet in Chrome's layout: PT 96, marker, abs-send-time (ID 2) and
    /// transport-cc (ID 4) as captured above, a descriptor with 15-bit PictureID, TL0PICIDX and
    /// TID, then a 640×480 keyframe header.
    static let chromeVP8Keyframe: [UInt8] = [
        0x90, 0xE0, 0x1A, 0x60,  // V=2 X=1 | M=1 PT=96 | seq 6752
        0xD4, 0x09, 0x05, 0x49,  // timestamp 3557360969
        0xF7, 0xB1, 0x6E, 0x83,  // SSRC 0xF7B16E83
        0xBE, 0xDE, 0x00, 0x02,  // one-byte extensions, 2 words
        0x22, 0xF3, 0x43, 0x50,  // ID 2, L=2: abs-send-time 0xF34350
        0x41, 0x00, 0x9C, 0x00,  // ID 4, L=1: transport-wide seq 156 | padding
        // RFC 7741 §4.2 payload descriptor
        0x90,  // X=1 N=0 S=1 PID=0
        0xE0,  // I=1 L=1 T=1 K=0
        0xAB, 0xCD,  // M=1 PictureID 0x2BCD (11213)
        0x05,  // TL0PICIDX 5
        0x20,  // TID=0 Y=1 KEYIDX=0
        // RFC 7741 §4.3 payload header + RFC 6386 §9.1 keyframe start
        0x10, 0x02, 0x00,  // Size0=0 H=1 VER=0 P=0 (keyframe) | Size1=2 | Size2=0
        0x9D, 0x01, 0x2A,  // start code
        0x80, 0x02,  // width 640, scale 0 (little-endian)
        0xE0, 0x01,  // height 480, scale 0
    ]
}

/// Runs `body` over the memory of `bytes` and returns the VP8Error it throws, or nil.
func vp8Error<T>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws -> T) -> VP8Error? {
    bytes.withUnsafeBytes { buffer in vp8Error { try body(buffer) } }
}
