#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOPosix
@testable import StageTransport
import Testing

/// What a pipe end hands its delegate, kept on its event loop.
final class PipeRecorder: PipeTransportDelegate, @unchecked Sendable {
    var rtp: [[UInt8]] = []
    var rtcp: [[UInt8]] = []

    func pipe(_ pipe: PipeTransport, didReceiveRTP packet: UnsafeMutableRawBufferPointer) { rtp.append(Array(packet)) }
    func pipe(_ pipe: PipeTransport, didReceiveRTCP packet: UnsafeMutableRawBufferPointer) { rtcp.append(Array(packet)) }
}

/// A plain blocking UDP socket on 127.0.0.1 that plays a pipe's far end (or a stranger): it
/// sends what a test built, protected with `srtp` or not.
struct RawPipeEnd {
    let descriptor: CInt
    let address: SocketAddress
    let srtp: SRTPSession

    init(keys: SRTPKeyingMaterial) throws {
        (descriptor, address) = try MediaDropInProcessTests.boundSocket()
        srtp = try SRTPSession(keys)
    }

    func send(_ bytes: [UInt8], to destination: SocketAddress) {
        let sent = bytes.withUnsafeBytes { data in
            destination.withSockAddr { sendto(descriptor, data.baseAddress, data.count, 0, $0, socklen_t($1)) }
        }
        #expect(sent == bytes.count, "sendto")
    }

    /// The next datagram this socket receives (within 5 s), or nil.
    func receive() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: PipeTransport.maximumDatagramLength)
        let length = recv(descriptor, &buffer, buffer.count, 0)
        return length >= 0 ? Array(buffer.prefix(length)) : nil
    }

    func protect(_ packet: [UInt8], rtcp: Bool = false) throws -> [UInt8] {
        try PipeTransportTests.protect(packet, rtcp: rtcp, with: srtp)
    }

    func close() { _ = Glibc.close(descriptor) }
}

extension PipeTransportTests {
    /// Runs `body` with the two event loops of one group (as two media workers), shut down after.
    static func withLoops(_ body: ([any EventLoop]) async throws -> Void) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        do {
            try await body(Array(group.makeIterator()))
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        try await group.shutdownGracefully()
    }

    /// A pipe end on `loop` whose delegate is `recorder`, connected to `remote` with `keys` (not when nil).
    static func pipe(on loop: any EventLoop, recorder: PipeRecorder, remote: SocketAddress? = nil,
                     keys: SRTPKeyingMaterial? = nil) async throws -> PipeTransport {
        let pipe = try await PipeTransport.open(on: loop)
        try await loop.submit {
            pipe.delegate = recorder
            if let remote, let keys { try pipe.connect(remote: remote, keys: keys) }
        }.get()
        return pipe
    }

    /// What `pipe` counted and `recorder` got, read on the pipe's loop.
    struct Seen: Equatable {
        var rtp: [[UInt8]], rtcp: [[UInt8]]
        var sent: Int, received: Int
        var refused: [MediaDropReason: Int], notSent: [MediaDropReason: Int]
    }

    static func seen(_ pipe: PipeTransport, _ recorder: PipeRecorder) async throws -> Seen {
        try await pipe.eventLoop.submit {
            Seen(rtp: recorder.rtp, rtcp: recorder.rtcp, sent: pipe.packetsSent, received: pipe.packetsReceived,
                 refused: pipe.refused, notSent: pipe.notSent)
        }.get()
    }

    /// Waits (up to 5 s) until `condition` holds of what `pipe` saw; returns what it saw last.
    static func waitUntil(_ pipe: PipeTransport, _ recorder: PipeRecorder,
                          _ condition: (Seen) -> Bool) async throws -> Seen {
        let deadline = ContinuousClock.now + .seconds(5)
        var last = try await seen(pipe, recorder)
        while !condition(last), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
            last = try await seen(pipe, recorder)
        }
        return last
    }

    /// An RTP packet (RFC 3550 §5.1): payload type 96, a 40-byte payload; with `padding`, the P
    /// bit set and the last byte claiming that many bytes of padding.
    static func rtp(sequence: UInt16, ssrc: UInt32 = 0x5049_5045, padding: UInt8? = nil) -> [UInt8] {
        var packet: [UInt8] = [padding == nil ? 0x80 : 0xA0, 96, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 0, 0x0B, 0xB8]
        packet += withUnsafeBytes(of: ssrc.bigEndian, Array.init)
        packet += (0..<40).map { UInt8($0) }
        if let padding { packet[packet.count - 1] = padding }
        return packet
    }

    /// An RTCP receiver report with one report block (RFC 3550 §6.4.2).
    static func receiverReport(ssrc: UInt32 = 0x5049_5045) -> [UInt8] {
        [0x81, 201, 0, 7] + withUnsafeBytes(of: ssrc.bigEndian, Array.init) + (0..<24).map { UInt8($0 + 100) }
    }

    static func protect(_ packet: [UInt8], rtcp: Bool = false, with srtp: SRTPSession) throws -> [UInt8] {
        var buffer = packet + [UInt8](repeating: 0, count: SRTPSession.maxRTCPTrailer)
        let length = try buffer.withUnsafeMutableBytes { bytes in
            rtcp ? try srtp.protectRTCP(bytes, length: packet.count) : try srtp.protectRTP(bytes, length: packet.count)
        }
        return Array(buffer.prefix(length))
    }

    /// `PipeDatagram.open` on a copy of `datagram`.
    static func open(_ datagram: [UInt8], with srtp: SRTPSession) -> PipeDatagram.Opened {
        var copy = datagram
        return copy.withUnsafeMutableBytes { PipeDatagram.open($0, with: srtp) }
    }
}
