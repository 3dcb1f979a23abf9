public import NIOCore
import NIOPosix
import StageWire

/// Sockets, connections and the bytes on them.
extension ICEAgent {
    /// Binds a UDP socket on `ip` (port chosen by the kernel) as a host base.
    func openHostSocket(on ip: IPAddress) async throws -> ICEBase {
        let base = try await eventLoop.submit { [self] in
            makeBase(kind: .udp, candidate: ICECandidate(
                foundation: foundation(for: "host-udp-\(ip)"), type: .host, transport: .udp, address: STUNAddress(ip: ip, port: 0),
                priority: ICEPriority.candidate(type: .host, localPreference: ICELocalInterfaces.localPreference(of: ip, among: hostAddresses))))
        }.get()
        do {
            let channel = try await DatagramBootstrap(group: eventLoop)
                .channelOption(.socketOption(.so_rcvbuf), value: 4 << 20)
                .channelInitializer { [self] channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(ICEDatagramHandler(agent: self, base: base.id)) }
                }
                .bind(host: ip.description, port: 0).get()
            try await eventLoop.submit {
                base.channel = channel
                base.candidate.address.port = UInt16(channel.localAddress?.port ?? 0)
            }.get()
        } catch {
            _ = try? await eventLoop.submit { [self] in bases[base.id] = nil }.get()
            throw error
        }
        return base
    }

    /// Connects a TCP base to its passive remote candidate, from its host address (RFC 6544 §7.1).
    func connect(_ base: ICEBase) {
        guard base.channel == nil, !base.connecting, let peer = base.peer,
              let local = try? SocketAddress(STUNAddress(ip: base.candidate.address.ip, port: 0)) else { return }
        base.connecting = true
        ClientBootstrap(group: eventLoop)
            .connectTimeout(.seconds(3))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(ICEStreamHandler(agent: self, base: base.id)) }
            }
            .bind(to: local)
            .connect(to: peer)
            .whenComplete { [self] result in
                base.connecting = false
                switch result {
                case .success(let channel):
                    guard !closed, bases[base.id] === base else { channel.close(promise: nil); return }
                    base.channel = channel
                    base.candidate.address.port = UInt16(channel.localAddress?.port ?? 0)
                    for buffer in base.queued { channel.write(buffer, promise: nil) }
                    base.queued = []
                    channel.flush()
                case .failure:
                    base.queued = []
                    baseFailed(base)
                }
            }
    }

    /// Writes `bytes` from `base` to `destination` (a remote candidate): a datagram, an RFC 4571
    /// frame (connecting the TCP base first if needed), or wrapped for the TURN server
    /// (ChannelData or a Send indication).
    @discardableResult
    func send(_ bytes: [UInt8], base: ICEBase, to destination: STUNAddress) -> Bool {
        switch base.kind {
        case .udp:
            guard let channel = base.channel, let address = try? SocketAddress(destination) else { return false }
            channel.writeAndFlush(AddressedEnvelope(remoteAddress: address, data: channel.allocator.buffer(bytes: bytes)), promise: nil)
        case .tcpActive:
            guard let framed = try? RFC4571Framer.frame(bytes) else { return false }
            if let channel = base.channel {
                channel.writeAndFlush(channel.allocator.buffer(bytes: framed), promise: nil)
            } else {
                base.queued.append(ByteBuffer(bytes: framed))
                connect(base)
            }
        case .relay:
            guard base.channel != nil, let wrapped = try? base.allocation?.wrap(bytes, to: destination) else { return false }
            writeToServer(wrapped, base: base)
        }
        return true
    }

    /// Bytes for the TURN server of a relay base, on its UDP socket or TCP connection.
    func writeToServer(_ bytes: [UInt8], base: ICEBase) {
        guard let channel = base.channel else { return }
        if case .relay(.udp) = base.kind {
            guard let server = base.peer else { return }
            channel.writeAndFlush(AddressedEnvelope(remoteAddress: server, data: channel.allocator.buffer(bytes: bytes)), promise: nil)
        } else {
            channel.writeAndFlush(channel.allocator.buffer(bytes: bytes), promise: nil)
        }
    }

    // MARK: Media on the route

    /// The allocator of the route's channel (for buffers handed to ``write(_:flush:)``).
    public var allocator: ByteBufferAllocator { route?.base.channel?.allocator ?? ByteBufferAllocator() }

    /// Sends a packet (DTLS, SRTP) over the selected pair; false when none is selected yet.
    @discardableResult
    public func write(_ buffer: ByteBuffer, flush: Bool = true) -> Bool {
        guard let route, let channel = route.base.channel else { return false }
        switch route.base.kind {
        case .udp:
            channel.write(AddressedEnvelope(remoteAddress: route.destination, data: buffer), promise: nil)
            if flush { channel.flush() }
        case .tcpActive:
            var prefix = channel.allocator.buffer(capacity: 2)
            prefix.writeInteger(UInt16(truncatingIfNeeded: buffer.readableBytes))
            channel.write(prefix, promise: nil)
            channel.write(buffer, promise: nil)
            if flush { channel.flush() }
        case .relay:
            guard let wrapped = try? route.base.allocation?.wrap(Array(buffer.readableBytesView), to: route.remote.address) else { return false }
            writeToServer(wrapped, base: route.base)
        }
        return true
    }

    /// Flushes writes made with `flush: false`.
    public func flush() { route?.base.channel?.flush() }

    // MARK: Input

    func receiveDatagram(_ bytes: UnsafeMutableRawBufferPointer, from source: SocketAddress, base id: Int) {
        guard let base = bases[id], bytes.count > 0 else { return }
        if case .relay = base.kind {
            // From the TURN server: responses, Data indications, ChannelData.
            handleTURN(base.allocation?.receive(Array(bytes), now: .now) ?? [], base: base)
            return
        }
        guard Demux.classify(first: bytes[0], second: bytes.count > 1 ? bytes[1] : nil) == .stun else {
            return receiveData(bytes, base: base)   // the media path: no address conversion per packet
        }
        guard let stunSource = STUNAddress(source) else { return }
        receive(bytes, from: stunSource, base: base)
    }

    func receiveStream(_ bytes: [UInt8], base id: Int) {
        guard let base = bases[id] else { return }
        if case .relay = base.kind {
            handleTURN(base.allocation?.receive(bytes, now: .now) ?? [], base: base)
            return
        }
        do {
            try base.framer.append(bytes)
            while var frame = try base.framer.nextFrame() {
                let remote = base.peer.flatMap { STUNAddress($0) } ?? STUNAddress(ip: .v4(0), port: 0)
                frame.withUnsafeMutableBytes { receive($0, from: remote, base: base) }
            }
        } catch {
            base.channel?.close(promise: nil)
        }
    }

    func streamClosed(base id: Int) {
        guard let base = bases[id] else { return }
        base.channel = nil
        if case .relay = base.kind { base.allocation = nil }
        baseFailed(base)
    }
}
