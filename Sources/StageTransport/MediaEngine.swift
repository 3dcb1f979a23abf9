import Crypto
import Logging
public import NIOCore
import NIOPosix
import StageWire

/// The media port every peer connection shares: one UDP socket per address family (or the one
/// address of a specific `--host`) and, when on, one ICE-TCP listener (RFC 6544, passive) with
/// RFC 4571 framing. Whatever the transport, packets are demultiplexed alike (RFC 7983): STUN
/// goes to the ICE-lite responder, DTLS and SRTP to the peer whose selected path they came on.
/// All state lives on one event loop; nothing on the UDP packet path takes a lock or allocates:
/// a datagram is decrypted in one scratch buffer, and SRTP goes out protected straight into
/// its socket's `UDPSendBatch` (ICE-TCP output still takes one buffer per packet).
///
/// Files: `+Listen` binds the sockets, `+Receive` demultiplexes, `+ICE` answers checks and
/// selects paths, `+TCP` accepts, limits and closes ICE-TCP connections, `+ReadBurst` batches
/// the flushes of what reading causes.
public final class MediaEngine: @unchecked Sendable {
    /// The largest packet read from UDP, and the longest ICE-TCP frame accepted.
    public static let maximumPacketLength = 2048
    /// A peer silent this long loses consent (RFC 7675 §5.1).
    public static let consentTimeout: TimeAmount = .seconds(30)

    public let eventLoop: any EventLoop
    public let dtlsContext: DTLSContext
    /// The UDP port (the same on IPv4 and IPv6).
    public internal(set) var localPort = 0
    /// The ICE-TCP port, nil when ICE-TCP is off.
    public internal(set) var tcpPort: Int?
    /// The kernel id of the event loop's thread, whose CPU time /proc/self/task/<id>/stat tells.
    public internal(set) var threadID: Int32 = 0
    /// Datagrams and ICE-TCP frames read, and packets handed to a socket: read on the event loop.
    public internal(set) var packetsReceived = 0
    public internal(set) var packetsSent = 0
    /// The bound UDP sockets' and TCP listeners' local addresses, for the start-up log.
    public internal(set) var udpAddresses: [SocketAddress] = []
    public internal(set) var tcpAddresses: [SocketAddress] = []

    let allocator = ByteBufferAllocator()
    let logger = Logger(label: "proscenium.media")
    var udpSockets: [MediaUDPSocket] = []
    var tcpListeners: [any Channel] = []
    var tcpLimits = ICETCPLimits()
    /// Every open ICE-TCP connection, until its channel's `closeFuture` completes.
    var tcpConnections: [ObjectIdentifier: ICETCPConnection] = [:]
    var unauthenticatedTCP = 0
    /// Unauthenticated ICE-TCP connections per source address (IPv4) or /64 (IPv6).
    var unauthenticatedTCPBySource: [SourcePrefix: Int] = [:]
    var peersByUfrag: [String: MediaPeer] = [:]
    /// The remote address of every peer whose selected path is UDP: one peer per address.
    var peersByAddress: [SocketAddress: MediaPeer] = [:]
    /// Read bursts open now (see `+ReadBurst`); writes are flushed when it returns to 0.
    var readDepth = 0
    var needsFlush = false
    var tcpToFlush: [ICETCPConnection] = []
    var tcpFlushing: [ICETCPConnection] = []
    /// Where a datagram is decrypted in place (see `+Receive`); allocated once.
    let scratch = DatagramScratch(capacity: MediaEngine.maximumPacketLength)

    init(eventLoop: any EventLoop, dtlsContext: DTLSContext) {
        self.eventLoop = eventLoop
        self.dtlsContext = dtlsContext
        tcpToFlush.reserveCapacity(64)
        tcpFlushing.reserveCapacity(64)
    }


    /// Closes every socket, listener and connection.
    public func close() async {
        let channels = (try? await eventLoop.submit { [self] in
            udpSockets.map(\.channel) + tcpListeners + tcpConnections.values.map(\.channel)
        }.get()) ?? []
        for channel in channels { try? await channel.close() }
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
        if let path = peer.selectedPath, case .udp = path.local, peersByAddress[path.remote] === peer {
            peersByAddress[path.remote] = nil
        }
        for connection in peer.tcpConnections { closeTCP(connection, reason: .tcpPeerClosed) }
        peer.tcpConnections = []
        peer.delegate?.peerDidClose(peer, reason: reason)
    }

    // MARK: Output

    /// Sends a packet on `path`. The buffer starts with `path.framingHeadroom` bytes reserved,
    /// where the RFC 4571 length is written for TCP.
    /// - Returns: false when the path's connection is closing or cannot take more.
    @discardableResult
    func write(_ buffer: inout ByteBuffer, on path: MediaPath) -> Bool {
        switch path.local {
        case .udp(let socket):
            socket.channel.write(AddressedEnvelope(remoteAddress: path.remote, data: buffer), promise: nil)
            if isInReadBurst {
                socket.needsFlush = true
                needsFlush = true
            } else {
                socket.channel.flush()
            }
        case .tcp(let connection):
            guard !connection.isClosing else {
                MediaDropReason.sendNotReady.count()
                return false
            }
            guard connection.channel.isWritable else {
                MediaDropReason.tcpBackpressure.count()
                return false
            }
            guard let length = UInt16(exactly: buffer.readableBytes - RFC4571Scanner.prefixLength) else {
                MediaDropReason.tcpSendTooLarge.count()
                return false
            }
            buffer.setInteger(length, at: buffer.readerIndex)
            connection.channel.write(buffer, promise: nil)
            if isInReadBurst {
                if !connection.needsFlush {
                    connection.needsFlush = true
                    tcpToFlush.append(connection)
                }
                needsFlush = true
            } else {
                connection.channel.flush()
            }
        }
        return true
    }

    /// Adds one datagram to `socket`'s batch (see `UDPSendBatch`): `fill` writes it into the slot
    /// and returns its length, or 0 when there is nothing to send. Sent when the batch is full,
    /// when the read burst ends, or at once outside a burst.
    /// - Returns: whether a datagram was added.
    func send(on socket: MediaUDPSocket, batch: UDPSendBatch, to remote: SocketAddress,
              _ fill: (UnsafeMutableRawBufferPointer) -> Int) -> Bool {
        // A full batch is sent early, the burst going on: what it holds waits no longer.
        if batch.isFull, batch.send(queueingOn: socket.channel) {
            socket.needsFlush = true
            needsFlush = true
        }
        guard batch.add(to: remote, fill) else { return false }
        if isInReadBurst {
            socket.needsFlush = true
            needsFlush = true
        } else {
            socket.flush()
        }
        return true
    }

    /// Sends `bytes` (STUN, DTLS) on `path`, framed for its transport.
    func send(_ bytes: [UInt8], on path: MediaPath) {
        var buffer = allocator.buffer(capacity: path.framingHeadroom + bytes.count)
        buffer.writeRepeatingByte(0, count: path.framingHeadroom)
        buffer.writeBytes(bytes)
        write(&buffer, on: path)
    }

    func sendDTLS(_ datagrams: [[UInt8]], for peer: MediaPeer) {
        guard let path = peer.selectedPath else {
            if !datagrams.isEmpty { MediaDropReason.sendNotReady.count() }
            return
        }
        for datagram in datagrams { send(datagram, on: path) }
        peer.retransmitTask?.cancel()
        if let timeout = peer.dtls.nextTimeout {
            peer.retransmitTask = eventLoop.scheduleTask(in: TimeAmount(timeout)) { [weak self, weak peer] in
                guard let self, let peer, !peer.isClosed else { return }
                self.sendDTLS(peer.dtls.handleTimeout(), for: peer)
            }
        }
    }

    /// Once a second: peers whose consent expired are removed, and ICE-TCP connections their
    /// peers no longer use are closed.
    func sweep() {
        let now = NIODeadline.now()
        let consentDeadline = now - Self.consentTimeout
        for peer in peersByUfrag.values {
            if peer.lastHeard < consentDeadline {
                remove(peer, reason: "no consent for \(Self.consentTimeout.nanoseconds / 1_000_000_000) s (RFC 7675)")
            } else if !peer.tcpConnections.isEmpty {
                closeUnselectedTCP(of: peer, now: now)
            }
        }
    }

    static let hmacSHA1: @Sendable ([UInt8], UnsafeRawBufferPointer) -> [UInt8] = { key, data in
        Array(HMAC<Insecure.SHA1>.authenticationCode(for: data, using: SymmetricKey(data: key)))
    }
}
