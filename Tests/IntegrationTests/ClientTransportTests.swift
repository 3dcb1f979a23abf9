import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOPosix
import Synchronization
import Testing
import StageControl
import StageTransport
import StageWire

/// The Swift client transport (controlling ICE, DTLS client, SRTP) against a real server:
/// RTP sent over WHIP comes out of a WHEP subscription rewritten to the consumer's SSRC, each
/// packet numbered on the subscriber's transport (transport-cc).
@Suite(.serialized)
struct ClientTransportTests {
    @Test("packets published over WHIP reach a WHEP subscriber, renumbered for it")
    func whipToWhep() async throws {
        let server = try LocalStageServer()
        try await server.start()
        defer { server.stop() }
        let stageArn = try await server.api.createStage(name: "transport").arn
        let publisherToken = try await server.api.createParticipantToken(stageArn: stageArn, capabilities: ["PUBLISH"])
        let viewerToken = try await server.api.createParticipantToken(stageArn: stageArn, capabilities: ["SUBSCRIBE"])
        let context = try DTLSContext(certificate: DTLSCertificate())
        let loop = MultiThreadedEventLoopGroup.singleton.next()

        let publisher = ClientPeerConnection(tracks: [.init(mid: "0", kind: .video, direction: .sendonly, ssrc: 0x1111)], context: context, eventLoop: loop)
        try await publisher.open()
        try await publisher.connect(answer: try await postSDPOffer(server.baseURL.appendingPathComponent("whip"), publisher.offer(), token: publisherToken.token ?? ""))

        let received = Mutex<[(ssrc: UInt32, sequence: UInt16, transportWide: UInt16?)]>([])
        let viewer = ClientPeerConnection(tracks: [.init(mid: "0", kind: .video, direction: .recvonly)], context: context, eventLoop: loop)
        viewer.onRTP = { packet in
            let ssrc = UInt32(packet[8]) << 24 | UInt32(packet[9]) << 16 | UInt32(packet[10]) << 8 | UInt32(packet[11])
            let bytes = UnsafeRawBufferPointer(packet)
            let number = (try? RTPHeader.parse(bytes)).flatMap { parsed in
                try? parsed.header.extensionValue(RTPTransportSequenceNumber.self, id: ClientPeerConnection.transportWideExtensionID, in: bytes)
            }
            received.withLock { $0.append((ssrc, UInt16(packet[2]) << 8 | UInt16(packet[3]), number?.value)) }
        }
        try await viewer.open()
        let whep = server.baseURL.appendingPathComponent("whep/\(publisherToken.participantId ?? "")")
        let answer = try await postSDPOffer(whep, viewer.offer(), token: viewerToken.token ?? "")
        try await viewer.connect(answer: answer)
        try await Task.sleep(for: .milliseconds(200))

        // A forged "401 Unauthorized" Binding error from elsewhere, with a transaction id the
        // viewer never sent, must not end its session (RFC 8445 §7.2.5.2.1).
        let closedByServer = Atomic<Bool>(false)
        try await loop.submit { viewer.onClosedByServer = { closedByServer.store(true, ordering: .relaxed) } }.get()
        let viewerAddress = try #require(try await loop.submit { viewer.localAddress }.get())
        let forger = try await DatagramBootstrap(group: loop).bind(host: "127.0.0.1", port: 0).get()
        let forged = try STUNMessageBuilder.bindingError(transactionID: .random(), error: STUNErrorCode(code: STUNErrorCode.unauthorized, reason: "Unauthorized"))
        try await forger.writeAndFlush(AddressedEnvelope(remoteAddress: viewerAddress, data: forger.allocator.buffer(bytes: forged)))
        try await Task.sleep(for: .milliseconds(100))
        let closed = closedByServer.load(ordering: .relaxed)
        #expect(!closed, "a forged 401 closed the session")
        try await forger.close()

        for sequence in 0..<200 {
            var packet: [UInt8] = [0x80, 96, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 0, 0, UInt8(sequence & 0xFF), 0, 0, 0x11, 0x11, 0x10]
            packet += [UInt8](repeating: 0xAB, count: 800)
            let frozen = packet
            _ = try await loop.submit { frozen.withUnsafeBytes { publisher.sendRTP($0) } }.get()
            if sequence % 20 == 19 { try await Task.sleep(for: .milliseconds(5)) }
        }
        try await Task.sleep(for: .milliseconds(300))
        let got = received.withLock { $0 }
        #expect(got.count >= 190, "received \(got.count) of 200")
        #expect(Set(got.map(\.ssrc)).count == 1)
        #expect(got.first?.ssrc != 0x1111, "the subscriber sees the consumer's SSRC, not the publisher's")
        #expect(answer.contains("a=ssrc:\(got.first?.ssrc ?? 0) "))
        // The viewer offered transport-cc: every packet carries the next transport-wide number
        // (draft-holmer-rmcat-transport-wide-cc-extensions-01 §2), under the viewer's ID.
        #expect(answer.contains("a=extmap:\(ClientPeerConnection.transportWideExtensionID) \(RTPExtensionURI.transportWideCC)"))
        let numbers = got.compactMap(\.transportWide)
        #expect(numbers.count == got.count, "\(got.count - numbers.count) packets without a transport-wide number")
        let steps = zip(numbers, numbers.dropFirst()).map { $1 &- $0 }
        #expect(steps.allSatisfy { $0 >= 1 && $0 < 32 }, "numbers do not run on: \(steps.filter { $0 != 1 }.prefix(5))")
        await publisher.close()
        await viewer.close()
    }
}
