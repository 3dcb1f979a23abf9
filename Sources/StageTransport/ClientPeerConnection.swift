import Crypto
import Foundation
public import NIOCore
public import NIOPosix
public import StageWire

/// The client end of a WebRTC peer connection to an ICE-lite server (the SDK side, and the
/// benchmark's synthetic peers): its own UDP socket, a controlling ICE agent that checks the
/// server's one candidate with USE-CANDIDATE (RFC 8445 §7.2.5, aggressive nomination), DTLS as
/// client (we offer `a=setup:active`), then SRTP. All callbacks run on `eventLoop`.
public final class ClientPeerConnection: @unchecked Sendable {
    public enum Direction: String, Sendable { case sendonly, recvonly }

    /// One media section of our offer.
    public struct Track: Sendable {
        public var mid: String
        public var kind: RemoteOffer.StreamKindName
        public var direction: Direction
        /// Our SSRC for a sending track without simulcast.
        public var ssrc: UInt32
        /// Simulcast layers sent in this section, by rid (RFC 8853), lowest first; the packets of
        /// each carry its rid in the RFC 8852 header extension. Empty: one stream with `ssrc`.
        public var rids: [String]
        /// The `a=msid` track id (RFC 8830): how the server names the stream.
        public var trackId: String
        public init(mid: String, kind: RemoteOffer.StreamKindName, direction: Direction, ssrc: UInt32 = .random(in: 1...UInt32.max),
                    rids: [String] = [], trackId: String? = nil) {
            self.mid = mid
            self.kind = kind
            self.direction = direction
            self.ssrc = ssrc
            self.rids = rids
            self.trackId = trackId ?? mid
        }
    }

    public let tracks: [Track]
    public let credentials = ICECredentials.random()
    public let eventLoop: any EventLoop
    let context: DTLSContext
    private var channel: (any Channel)?
    private var remote: (address: SocketAddress, ufrag: String, password: String, fingerprint: [UInt8])?
    private var dtls: DTLSEndpoint?
    private var srtp: SRTPSession?
    private var connectedPromise: EventLoopPromise<Void>?
    private var checkTask: RepeatedTask?
    private let tieBreaker = UInt64.random(in: 0...UInt64.max)
    /// The keys given to `connectWithoutHandshake`.
    public private(set) var fixedKeys: SRTPKeyingMaterial?
    public var localAddress: SocketAddress? { channel?.localAddress }
    /// Decrypted RTP received (subscribers).
    public var onRTP: ((UnsafeMutableRawBufferPointer) -> Void)?
    public var onRTCP: ((UnsafeMutableRawBufferPointer) -> Void)?

    public static let payloadTypes: [RemoteOffer.StreamKindName: UInt8] = [.video: 96, .audio: 111]
    /// Header extension ids of our offers: RFC 8843 mid and RFC 8852 rtp-stream-id.
    public static let midExtensionID: UInt8 = 1
    public static let ridExtensionID: UInt8 = 2
    /// The `a=msid` stream id of our sending tracks.
    public var streamId = "proscenium"
    /// Called once on the event loop when nothing arrived from the server for `receiveTimeout`
    /// after connecting: consent lost (RFC 7675 §5.1), the path or the server is gone.
    public var onTimeout: (() -> Void)?
    public var receiveTimeout: TimeAmount = .seconds(3)
    /// Called once on the event loop when the server closed the connection (DTLS close_notify,
    /// or a STUN error answering our consent check).
    public var onClosedByServer: (() -> Void)?
    private var lastReceived = NIODeadline.now()
    private var counters = Statistics()
    /// When each outstanding consent check left, by transaction id: answers give the round trip.
    private var checksInFlight: [STUNTransactionID: NIODeadline] = [:]

    /// The transport's counters, as WebRTC's `candidate-pair` stats name them.
    public struct Statistics: Sendable {
        public var packetsSent = 0
        public var bytesSent = 0
        public var packetsReceived = 0
        public var bytesReceived = 0
        /// Of the latest consent check answered (RFC 7675), in seconds.
        public var currentRoundTripTime: Double?
        public var remoteAddress: String?
        public var localAddress: String?
    }

    /// The latest consent round trip in seconds (call on `eventLoop`).
    public var currentRoundTripTime: Double? { counters.currentRoundTripTime }

    /// The counters now (any thread).
    public func statistics() async -> Statistics {
        (try? await eventLoop.submit { [self] in
            var statistics = counters
            statistics.remoteAddress = remote.map { "\($0.address)" }
            statistics.localAddress = channel?.localAddress.map { "\($0)" }
            return statistics
        }.get()) ?? Statistics()
    }
    private var livenessTask: RepeatedTask?

    public init(tracks: [Track], context: DTLSContext, eventLoop: any EventLoop) {
        self.tracks = tracks
        self.context = context
        self.eventLoop = eventLoop
    }

    /// Opens the UDP socket on `host` (loopback unless a test network says otherwise).
    public func open(host: String = "127.0.0.1") async throws {
        channel = try await DatagramBootstrap(group: eventLoop)
            .channelOption(.socketOption(.so_rcvbuf), value: 4 << 20)
            .channelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(ClientHandler(peer: self)) }
            }
            .bind(host: host, port: 0).get()
    }

    /// Our offer (RFC 8829 §5.2): BUNDLE, rtcp-mux, VP8/Opus, our fingerprint, `setup:active`.
    public func offer() -> String {
        var lines = ["v=0", "o=- \(UInt64.random(in: 1..<(1 << 62))) 2 IN IP4 127.0.0.1", "s=-", "t=0 0",
                     "a=group:BUNDLE \(tracks.map(\.mid).joined(separator: " "))", "a=msid-semantic: WMS *"]
        for track in tracks {
            let pt = Self.payloadTypes[track.kind] ?? 96
            lines += ["m=\(track.kind.rawValue) 9 UDP/TLS/RTP/SAVPF \(pt)", "c=IN IP4 0.0.0.0", "a=mid:\(track.mid)",
                      "a=ice-ufrag:\(credentials.ufrag)", "a=ice-pwd:\(credentials.password)",
                      "a=fingerprint:sha-256 \(context.certificate.sdpFingerprint)", "a=setup:active",
                      "a=\(track.direction.rawValue)", "a=rtcp-mux", "a=rtcp-rsize",
                      track.kind == .video ? "a=rtpmap:\(pt) VP8/90000" : "a=rtpmap:\(pt) opus/48000/2"]
            if track.kind == .video { lines += ["a=rtcp-fb:\(pt) nack", "a=rtcp-fb:\(pt) nack pli"] }
            lines += ["a=extmap:\(Self.midExtensionID) \(RTPExtensionURI.mid)"]
            if track.direction == .sendonly {
                lines += ["a=msid:\(streamId) \(track.trackId)"]
                if track.rids.isEmpty {
                    lines += ["a=ssrc:\(track.ssrc) cname:\(streamId)"]
                } else {
                    lines += ["a=extmap:\(Self.ridExtensionID) \(RTPExtensionURI.rtpStreamID)"]
                    lines += track.rids.map { "a=rid:\($0) send" }
                    lines += ["a=simulcast:send \(track.rids.joined(separator: ";"))"]
                }
            }
            lines += candidateLines
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// Our host candidate (RFC 8839 §5.1), once the socket is open.
    private var candidateLines: [String] {
        guard let address = channel?.localAddress, let port = address.port, let ip = address.ipAddress else { return [] }
        let candidate = SDPCandidate(foundation: "1", priority: 2130706431, address: ip, port: UInt16(port))
        return [SDPLine.attribute(candidate).description, "a=end-of-candidates"]
    }

    /// Our answer to a server's offer (an SFU that offers to its subscribers, like Janus):
    /// receive what it sends, `setup:active`, the offered codec's payload type. Then call
    /// `connect(answer:)` with the server's offer: it holds the server's ICE and DTLS details.
    public func answer(to offer: String) throws -> String {
        let remote = try RemoteOffer(sdp: offer)
        var lines = ["v=0", "o=- \(UInt64.random(in: 1..<(1 << 62))) 2 IN IP4 127.0.0.1", "s=-", "t=0 0",
                     "a=group:BUNDLE \(remote.sections.map(\.mid).joined(separator: " "))", "a=msid-semantic: WMS *"]
        for section in remote.sections {
            let map = section.codec.rtpMap
            let direction = section.direction == .sendonly || section.direction == .sendrecv ? "recvonly" : "inactive"
            lines += ["m=\(section.kind.rawValue) 9 UDP/TLS/RTP/SAVPF \(map.payloadType)", "c=IN IP4 0.0.0.0", "a=mid:\(section.mid)",
                      "a=ice-ufrag:\(credentials.ufrag)", "a=ice-pwd:\(credentials.password)",
                      "a=fingerprint:sha-256 \(context.certificate.sdpFingerprint)", "a=setup:active",
                      "a=\(direction)", "a=rtcp-mux",
                      SDPLine.attribute(map).description]
            lines += candidateLines
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// Candidate addresses this client may send to. The benchmark and tests talk to servers on
    /// this machine only, so by default only loopback addresses are used.
    public var allowedAddress: @Sendable (String) -> Bool = { $0 == "127.0.0.1" || $0 == "::1" }

    /// Applies the server's answer and connects: ICE check, DTLS, SRTP. Returns once SRTP is ready.
    public func connect(answer: String, timeout: TimeAmount = .seconds(10)) async throws {
        let description: SessionDescription
        do { description = try SessionDescription(parsing: answer) } catch { throw NegotiationError("answer: \(error)") }
        guard let media = description.media.first, let ufrag = media.iceUfrag ?? description.iceUfrag,
              let password = media.icePwd ?? description.icePwd,
              let print = (media.fingerprints + description.fingerprints).first,
              let candidate = media.candidates.first(where: { allowedAddress($0.address) }),
              let address = try? SocketAddress(ipAddress: candidate.address, port: Int(candidate.port)) else {
            throw NegotiationError("answer: ICE credentials, fingerprint or a usable host candidate missing")
        }
        let promise = eventLoop.makePromise(of: Void.self)
        try await eventLoop.submit { [self] in
            remote = (address, ufrag, password, print.bytes)
            dtls = try DTLSEndpoint(role: .client, context: context, remoteFingerprint: print.bytes)
            connectedPromise = promise
            checkTask = eventLoop.scheduleRepeatedTask(initialDelay: .zero, delay: .milliseconds(100)) { [weak self] _ in self?.sendCheck() }
            eventLoop.scheduleTask(in: timeout) { [weak self] in
                self?.checkTask?.cancel()
                promise.fail(NegotiationError("connect: no SRTP after \(timeout.nanoseconds / 1_000_000) ms"))
            }
        }.get()
        try await promise.futureResult.get()
    }

    /// Skips ICE and DTLS: talks SRTP with fixed keys straight to `address` (the benchmark's
    /// floor relay, which measures what forwarding costs without any of them).
    public func connectWithoutHandshake(to address: SocketAddress, keys: SRTPKeyingMaterial) async throws {
        try await eventLoop.submit { [self] in
            remote = (address, "", "", [])
            srtp = try SRTPSession(keys)
            fixedKeys = keys
        }.get()
    }

    /// Sends a connectivity check (USE-CANDIDATE); once DTLS is done, switches to consent
    /// checks (RFC 7675), one a second.
    private func sendCheck() {
        guard remote != nil else { return }
        sendBindingRequest(useCandidate: true)
        if srtp != nil {   // connected: keep consent with one check a second
            checkTask?.cancel()
            checkTask = eventLoop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { [weak self] _ in
                self?.sendBindingRequest(useCandidate: false)
            }
        }
    }

    /// A Binding request to the server, with integrity from its password: a connectivity check
    /// (PRIORITY and USE-CANDIDATE, aggressive nomination) or a consent check, whose answer
    /// gives the round trip.
    private func sendBindingRequest(useCandidate: Bool) {
        guard let remote else { return }
        var builder = STUNMessageBuilder(type: .bindingRequest)
        if !useCandidate {
            checksInFlight = checksInFlight.filter { NIODeadline.now() - $0.value < .seconds(10) }
            checksInFlight[builder.transactionID] = .now()
        }
        try? builder.appendUsername("\(remote.ufrag):\(credentials.ufrag)")
        if useCandidate { builder.appendPriority(0x7E00_00FF) }
        builder.appendICEControlling(tieBreaker: tieBreaker)
        if useCandidate { builder.appendUseCandidate() }
        write(builder.finish(integrityKey: STUNMessage.shortTermKey(password: remote.password), hmacSHA1: MediaEngine.hmacSHA1), to: remote.address)
    }

    fileprivate func receive(_ bytes: UnsafeMutableRawBufferPointer, from source: SocketAddress) {
        guard bytes.count > 0, let remote else { return }
        switch Demux.classify(first: bytes[0], second: bytes.count > 1 ? bytes[1] : nil) {
        case .stun:
            guard let message = try? STUNMessage(parsing: UnsafeRawBufferPointer(bytes)) else { return }
            if message.type == .bindingRequest {
                // A full (or triggered-checking) peer checks us too: answer with our password.
                guard message.verifyIntegrity(key: STUNMessage.shortTermKey(password: credentials.password), hmacSHA1: MediaEngine.hmacSHA1),
                      let stunSource = STUNAddress(source) else { return }
                write(STUNMessageBuilder.bindingSuccess(transactionID: message.transactionID, source: stunSource,
                                                        localPassword: credentials.password, hmacSHA1: MediaEngine.hmacSHA1), to: source)
                return
            }
            if message.type == .bindingError, source == remote.address {
                serverForgotUs()
                return
            }
            guard message.type == .bindingSuccess,
                  message.verifyIntegrity(key: STUNMessage.shortTermKey(password: remote.password), hmacSHA1: MediaEngine.hmacSHA1),
                  let dtls else { return }
            lastReceived = .now()
            if let sent = checksInFlight.removeValue(forKey: message.transactionID) {
                counters.currentRoundTripTime = Double((NIODeadline.now() - sent).nanoseconds) / 1e9
            }
            if case .handshaking = dtls.state { sendDTLS(dtls.start()) }
        case .dtls:
            guard let dtls else { return }
            sendDTLS(dtls.receive(UnsafeRawBufferPointer(bytes)))
            if case .connected(let keys) = dtls.state, srtp == nil {
                do {
                    srtp = try SRTPSession(keys)
                    watchLiveness()
                    connectedPromise?.succeed()
                } catch {
                    connectedPromise?.fail(error)
                }
            } else if case .failed(let error) = dtls.state {
                connectedPromise?.fail(error)
            } else if case .closed = dtls.state, srtp != nil {
                // The server ended this connection (close_notify): it is over, say so now.
                closedByServer()
            }
        case .rtp:
            guard let srtp, let length = try? srtp.unprotectRTP(bytes, length: bytes.count) else { return }
            lastReceived = .now()
            counters.packetsReceived += 1
            counters.bytesReceived += bytes.count
            onRTP?(UnsafeMutableRawBufferPointer(rebasing: bytes[0..<length]))
        case .rtcp:
            guard let srtp, let length = try? srtp.unprotectRTCP(bytes, length: bytes.count) else { return }
            lastReceived = .now()
            onRTCP?(UnsafeMutableRawBufferPointer(rebasing: bytes[0..<length]))
        default:
            return
        }
    }

    private func sendDTLS(_ datagrams: [[UInt8]]) {
        guard let remote else { return }
        for datagram in datagrams { write(datagram, to: remote.address) }
        if let timeout = dtls?.nextTimeout {
            eventLoop.scheduleTask(in: TimeAmount(timeout)) { [weak self] in
                guard let self, let dtls = self.dtls, case .handshaking = dtls.state else { return }
                self.sendDTLS(dtls.handleTimeout())
            }
        }
    }

    /// The server answered a check with an error (401: it has no such connection any more).
    private func serverForgotUs() {
        if srtp == nil {
            checkTask?.cancel()
            connectedPromise?.fail(NegotiationError("connect: the server does not know this connection (STUN error response)"))
        } else {
            closedByServer()
        }
    }

    /// The connected session is over on the server's side: stop, and tell our owner.
    private func closedByServer() {
        srtp = nil
        livenessTask?.cancel()
        checkTask?.cancel()
        onClosedByServer?()
    }

    /// After connecting, checks twice a second that the server still answers (consent responses
    /// arrive every second even when no media flows).
    private func watchLiveness() {
        lastReceived = .now()
        livenessTask = eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(500), delay: .milliseconds(500)) { [weak self] task in
            guard let self, NIODeadline.now() - self.lastReceived > self.receiveTimeout else { return }
            task.cancel()
            self.onTimeout?()
        }
    }

    /// Protects and sends an RTCP compound packet (call on `eventLoop`); false before SRTP is ready.
    @discardableResult
    public func sendRTCP(_ packet: UnsafeRawBufferPointer) -> Bool {
        guard let srtp, let remote, let channel,
              let buffer = srtp.protect(packet, rtcp: true, allocator: channel.allocator) else { return false }
        channel.writeAndFlush(AddressedEnvelope(remoteAddress: remote.address, data: buffer), promise: nil)
        return true
    }

    /// Protects and sends an RTP packet (call on `eventLoop`); false before SRTP is ready.
    @discardableResult
    public func sendRTP(_ packet: UnsafeRawBufferPointer, flush: Bool = true) -> Bool {
        guard let srtp, let remote, let channel,
              let buffer = srtp.protect(packet, rtcp: false, allocator: channel.allocator) else { return false }
        counters.packetsSent += 1
        counters.bytesSent += buffer.readableBytes
        channel.write(AddressedEnvelope(remoteAddress: remote.address, data: buffer), promise: nil)
        if flush { channel.flush() }
        return true
    }

    public func flush() { channel?.flush() }

    private func write(_ bytes: [UInt8], to address: SocketAddress) {
        guard let channel else { return }
        channel.writeAndFlush(AddressedEnvelope(remoteAddress: address, data: channel.allocator.buffer(bytes: bytes)), promise: nil)
    }

    /// Tells the server with a DTLS close_notify (so it frees the session at once), then closes the socket.
    public func close() async {
        try? await eventLoop.submit { [self] in
            checkTask?.cancel()
            livenessTask?.cancel()
            onTimeout = nil
            if let dtls, let remote {
                for datagram in dtls.shutdown() { write(datagram, to: remote.address) }
            }
            srtp = nil
        }.get()
        try? await channel?.close()
    }
}

private final class ClientHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    let peer: ClientPeerConnection
    init(peer: ClientPeerConnection) { self.peer = peer }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        var buffer = envelope.data
        buffer.withUnsafeMutableReadableBytes { peer.receive($0, from: envelope.remoteAddress) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {}
}
