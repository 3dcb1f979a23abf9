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
}
