#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOEmbedded
@testable import StageTransport
import StageWire
import Testing

/// The `MediaDropReason`s a real server cannot be made to produce from outside (see
/// `IntegrationTests.MediaDropWalkTests`), produced here next to their component.
struct MediaDropInProcessTests {
    @Test("no_remote_address: an accepted connection without a peer address is refused")
    func acceptWithoutRemoteAddress() throws {
        let media = try EmbeddedMediaEngine()
        let channel = EmbeddedChannel(loop: media.loop)
        #expect(throws: MediaEngine.ConnectionRefused.self) { try media.engine.accept(channel) }
        #expect(media.engine.tcpConnections.isEmpty)
    }

    @Test("tcp_send_too_large: a packet longer than RFC 4571's 16-bit length is not sent; the connection stays")
    func sendTooLarge() throws {
        let media = try EmbeddedMediaEngine()
        let channel = try media.connectTCP()
        let connection = try #require(media.engine.tcpConnections.values.first)
        var buffer = ByteBuffer(repeating: 0, count: RFC4571Scanner.prefixLength + 70_000)
        #expect(!media.engine.write(&buffer, on: MediaPath(local: .tcp(connection), remote: connection.remote)))
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil)
        #expect(channel.isActive)
    }

    @Test("srtp_protect_failed: a packet libsrtp cannot read is not protected (MediaPeer counts it and sends nothing)")
    func protectFailure() throws {
        let keys = SRTPKeyingMaterial(profile: .aes128CmHmacSha1_80, local: [UInt8](repeating: 1, count: 30),
                                      remote: [UInt8](repeating: 2, count: 30))
        let srtp = try SRTPSession(keys)
        let tooShort: [UInt8] = [0x80, 96, 0, 1]
        #expect(tooShort.withUnsafeBytes { srtp.protect($0, rtcp: false, allocator: ByteBufferAllocator()) } == nil)
    }

    @Test("udp_send_failed: an error the UDP socket reports is counted and the socket keeps serving")
    func socketError() throws {
        let media = try EmbeddedMediaEngine()
        let (_, channel) = try media.udpSocket()
        channel.pipeline.fireErrorCaught(IOError(errnoCode: ECONNREFUSED, reason: "sendmsg"))
        #expect(throws: Never.self, "the handler takes the error: nothing closes the socket") { try channel.throwIfErrorCaught() }
    }

    @Test("udp_send_failed: a datagram the kernel refuses is skipped, and the rest of the batch is sent")
    func refusedDatagramIsSkipped() throws {
        let receiver = try Self.boundSocket()
        defer { close(receiver.descriptor) }
        let sender = try Self.boundSocket()
        defer { close(sender.descriptor) }
        let batch = UDPSendBatch(descriptor: sender.descriptor)
        // An IPv6 destination on an IPv4 socket: sendmmsg refuses it.
        #expect(batch.add(to: try SocketAddress(ipAddress: "::1", port: 9)) { slot in
            slot[0] = 1
            return 1
        })
        #expect(batch.add(to: receiver.address) { slot in
            slot.copyBytes(from: [0x80, 96, 0, 1])
            return 4
        })
        let channel = EmbeddedChannel()
        #expect(!batch.send(queueingOn: channel), "nothing was left for NIO's queue")
        #expect(batch.count == 0)
        var received = [UInt8](repeating: 0, count: 16)
        let length = recv(receiver.descriptor, &received, received.count, 0)
        #expect(Array(received.prefix(max(length, 0))) == [0x80, 96, 0, 1], "the datagram after the refused one arrived")
    }

    /// A blocking UDP socket on 127.0.0.1 (receives time out after 5 s) and its address.
    static func boundSocket() throws -> (descriptor: CInt, address: SocketAddress) {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let any = try SocketAddress(ipAddress: "127.0.0.1", port: 0)
        _ = any.withSockAddr { bind(descriptor, $0, socklen_t($1)) }
        var storage = sockaddr_in()
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &size) } }
        return (descriptor, try SocketAddress(ipAddress: "127.0.0.1", port: Int(UInt16(bigEndian: storage.sin_port))))
    }
}
