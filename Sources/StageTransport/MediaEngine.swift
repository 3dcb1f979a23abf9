import Crypto
import Logging
public import NIOCore
public import NIOPosix
import StageWire

/// The one UDP port every peer connection shares (RFC 7983 demultiplexing): STUN goes to the
/// ICE-lite responder, DTLS and SRTP to the peer the source address belongs to.
/// All state lives on one event loop; nothing on the packet path takes a lock.
public final class MediaEngine: @unchecked Sendable {
    public let eventLoop: any EventLoop
    public let dtlsContext: DTLSContext
    public private(set) var localPort = 0
    var channel: (any Channel)?
    private var peersByUfrag: [String: MediaPeer] = [:]
    private var peersByAddress: [SocketAddress: MediaPeer] = [:]
    private var inRead = false
    private var needsFlush = false
    private let logger = Logger(label: "proscenium.media")

    /// A peer silent this long loses consent (RFC 7675 §5.1).
    public static let consentTimeout: TimeAmount = .seconds(30)

    init(eventLoop: any EventLoop, dtlsContext: DTLSContext) {
        self.eventLoop = eventLoop
        self.dtlsContext = dtlsContext
    }

    /// Binds the media port and starts serving it.
    public static func start(host: String, port: Int, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws -> MediaEngine {
        let engine = MediaEngine(eventLoop: group.next(), dtlsContext: try DTLSContext(certificate: DTLSCertificate()))
        let channel = try await DatagramBootstrap(group: engine.eventLoop)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(.maxMessagesPerRead, value: 32)
            .channelOption(.socketOption(.so_rcvbuf), value: 4 << 20)
            .channelOption(.socketOption(.so_sndbuf), value: 4 << 20)
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 2048))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(MediaChannelHandler(engine: engine)) }
            }
            .bind(host: host, port: port)
            .get()
        engine.channel = channel
        engine.localPort = channel.localAddress?.port ?? port
        engine.eventLoop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { [weak engine] _ in
            engine?.expireSilentPeers()
        }
        return engine
    }

    public func close() async {
        try? await channel?.close()
    }

    // MARK: Peers (call on the event loop)

    public func register(_ peer: MediaPeer) {
        eventLoop.preconditionInEventLoop()
        peersByUfrag[peer.credentials.ufrag] = peer
    }

    func remove(_ peer: MediaPeer, reason: String) {
        eventLoop.preconditionInEventLoop()
        guard !peer.isClosed else { return }
        // Tell a connected peer at once (close_notify) rather than let its consent checks expire.
        if case .connected = peer.dtls.state { sendDTLS(peer.dtls.shutdown(), for: peer) }
        peer.isClosed = true
        peer.retransmitTask?.cancel()
        peersByUfrag[peer.credentials.ufrag] = nil
        if let address = peer.remoteAddress, peersByAddress[address] === peer { peersByAddress[address] = nil }
        peer.delegate?.peerDidClose(peer, reason: reason)
    }

    // MARK: Output

    func write(_ buffer: ByteBuffer, to address: SocketAddress) {
        guard let channel else { return }
        channel.write(AddressedEnvelope(remoteAddress: address, data: buffer), promise: nil)
        if inRead { needsFlush = true } else { channel.flush() }
    }

    private func send(_ bytes: [UInt8], to address: SocketAddress) {
        guard let channel else { return }
        var buffer = channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        write(buffer, to: address)
    }

    // MARK: Input

    func beginRead() { inRead = true }

    func endRead() {
        inRead = false
        if needsFlush {
            needsFlush = false
            channel?.flush()
        }
    }

    func receive(_ envelope: AddressedEnvelope<ByteBuffer>) {
        var data = envelope.data
        let source = envelope.remoteAddress
        data.withUnsafeMutableReadableBytes { bytes in
            guard bytes.count > 0 else { return MediaDropReason.unknownKind.count() }
            switch Demux.classify(first: bytes[0], second: bytes.count > 1 ? bytes[1] : nil) {
            case .stun: receiveSTUN(UnsafeRawBufferPointer(bytes), from: source)
            case .dtls: receiveDTLS(UnsafeRawBufferPointer(bytes), from: source)
            case .rtp: receiveSRTP(bytes, from: source, rtcp: false)
            case .rtcp: receiveSRTP(bytes, from: source, rtcp: true)
            default: MediaDropReason.unknownKind.count()
            }
        }
    }

    /// ICE-lite (RFC 8445 §2.5, §7.3): answer Binding requests whose USERNAME starts with a
    /// local ufrag and whose MESSAGE-INTEGRITY verifies with that peer's password.
    private func receiveSTUN(_ bytes: UnsafeRawBufferPointer, from source: SocketAddress) {
        guard let message = try? STUNMessage(parsing: bytes) else { return MediaDropReason.malformedSTUN.count() }
        guard message.type == .bindingRequest else { return MediaDropReason.stunNotRequest.count() }
        guard let username = try? message.username, let localUfrag = username.split(separator: ":").first,
              let peer = peersByUfrag[String(localUfrag)] else {
            // RFC 8489 §9.1.3: 401 for a USERNAME we do not know, so a client whose connection
            // ended here (closed, expired, server restarted) learns it at once.
            if let reply = try? STUNMessageBuilder.bindingError(transactionID: message.transactionID,
                                                                 error: STUNErrorCode(code: STUNErrorCode.unauthorized, reason: "Unauthorized")) {
                send(reply, to: source)
            }
            return MediaDropReason.stunUnknownUsername.count()
        }
        guard message.verifyIntegrity(key: STUNMessage.shortTermKey(password: peer.credentials.password), hmacSHA1: Self.hmacSHA1) else {
            return MediaDropReason.stunBadIntegrity.count()
        }
        guard let stunSource = STUNAddress(source) else { return MediaDropReason.malformedSTUN.count() }
        peer.lastHeard = .now()
        send(STUNMessageBuilder.bindingSuccess(transactionID: message.transactionID, source: stunSource,
                                               localPassword: peer.credentials.password, hmacSHA1: Self.hmacSHA1), to: source)
        // A first successful check selects the pair so DTLS can start; USE-CANDIDATE (regular or
        // aggressive nomination) fixes it, and a later nomination from a new address moves it.
        if peer.remoteAddress == nil || (message.useCandidate && (peer.remoteAddress != source || !peer.nominated)) {
            select(source, for: peer, nominated: message.useCandidate)
        }
    }

    private func select(_ address: SocketAddress, for peer: MediaPeer, nominated: Bool) {
        if let old = peer.remoteAddress, peersByAddress[old] === peer { peersByAddress[old] = nil }
        peer.remoteAddress = address
        peer.nominated = peer.nominated || nominated
        peersByAddress[address] = peer
        if peer.dtls.role == .client, case .handshaking = peer.dtls.state {
            sendDTLS(peer.dtls.start(), for: peer)
        }
    }

    private func receiveDTLS(_ bytes: UnsafeRawBufferPointer, from source: SocketAddress) {
        guard let peer = peersByAddress[source] else { return MediaDropReason.unknownAddress.count() }
        peer.lastHeard = .now()
        let wasConnected = peer.srtp != nil
        sendDTLS(peer.dtls.receive(bytes), for: peer)
        switch peer.dtls.state {
        case .connected(let keys) where !wasConnected:
            do {
                peer.srtp = try SRTPSession(keys)
                peer.delegate?.peerDidConnect(peer)
            } catch {
                MediaDropReason.dtlsFailed.count()
                remove(peer, reason: "SRTP setup failed: \(error)")
            }
        case .closed:
            remove(peer, reason: "the peer closed DTLS (close_notify)")
        case .failed(let error):
            MediaDropReason.dtlsFailed.count()
            logger.notice("DTLS failed", metadata: ["peer": "\(peer.id)", "error": "\(error)"])
            remove(peer, reason: "\(error)")
        default:
            break
        }
    }

    private func sendDTLS(_ datagrams: [[UInt8]], for peer: MediaPeer) {
        guard let address = peer.remoteAddress else { return }
        for datagram in datagrams { send(datagram, to: address) }
        peer.retransmitTask?.cancel()
        if let timeout = peer.dtls.nextTimeout {
            peer.retransmitTask = eventLoop.scheduleTask(in: TimeAmount(timeout)) { [weak self, weak peer] in
                guard let self, let peer, !peer.isClosed else { return }
                self.sendDTLS(peer.dtls.handleTimeout(), for: peer)
            }
        }
    }

    private func receiveSRTP(_ bytes: UnsafeMutableRawBufferPointer, from source: SocketAddress, rtcp: Bool) {
        guard let peer = peersByAddress[source] else { return MediaDropReason.unknownAddress.count() }
        guard let srtp = peer.srtp else { return MediaDropReason.notConnected.count() }
        peer.lastHeard = .now()
        do {
            let length = rtcp ? try srtp.unprotectRTCP(bytes, length: bytes.count) : try srtp.unprotectRTP(bytes, length: bytes.count)
            let plain = UnsafeMutableRawBufferPointer(rebasing: bytes[0..<length])
            if rtcp { peer.delegate?.peer(peer, didReceiveRTCP: plain) } else { peer.delegate?.peer(peer, didReceiveRTP: plain) }
        } catch {
            switch error {
            case .authentication: MediaDropReason.srtpAuthentication.count()
            case .replay: MediaDropReason.srtpReplay.count()
            case .other: MediaDropReason.srtpOther.count()
            }
        }
    }

    private func expireSilentPeers() {
        let deadline = NIODeadline.now() - Self.consentTimeout
        for peer in peersByUfrag.values where peer.lastHeard < deadline {
            remove(peer, reason: "no consent for \(Self.consentTimeout.nanoseconds / 1_000_000_000) s (RFC 7675)")
        }
    }

    static let hmacSHA1: @Sendable ([UInt8], UnsafeRawBufferPointer) -> [UInt8] = { key, data in
        Array(HMAC<Insecure.SHA1>.authenticationCode(for: data, using: SymmetricKey(data: key)))
    }
}

extension STUNAddress {
    /// The STUN form of a socket address (nil for Unix sockets).
    init?(_ address: SocketAddress) {
        guard let port = address.port else { return nil }
        switch address {
        case .v4(let v4):
            self.init(ip: .v4(UInt32(bigEndian: v4.address.sin_addr.s_addr)), port: UInt16(port))
        case .v6(let v6):
            var storage = v6.address.sin6_addr
            let bytes = withUnsafeBytes(of: &storage) { Array($0) }
            guard let ip = IPAddress(bytes: bytes) else { return nil }
            self.init(ip: ip, port: UInt16(port))
        default:
            return nil
        }
    }
}

/// Hands datagrams to the engine and batches the writes they cause into one flush per read burst.
final class MediaChannelHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    let engine: MediaEngine

    init(engine: MediaEngine) { self.engine = engine }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        engine.beginRead()
        engine.receive(unwrapInboundIn(data))
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        engine.endRead()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // ICMP port unreachable and similar: a UDP socket keeps serving.
    }
}
