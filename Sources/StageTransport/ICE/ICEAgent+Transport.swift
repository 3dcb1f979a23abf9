public import NIOCore
import NIOPosix
import StageWire

/// Sockets, connections and the bytes on them.
extension ICEAgent {
    /// Binds a UDP socket on `ip` (port chosen by the kernel) as a host base; nil when the agent
    /// closed meanwhile or the address is being bound by another call.
    func openHostSocket(on ip: IPAddress) async throws -> ICEBase? {
        let base = try await eventLoop.submit { [self] () -> ICEBase? in
            guard !closed, opening.insert(ip).inserted else { return nil }
            return makeBase(kind: .udp, candidate: ICECandidate(
                foundation: foundation(for: "host-udp-\(ip)"), type: .host, transport: .udp, address: STUNAddress(ip: ip, port: 0),
                priority: ICEPriority.candidate(type: .host, localPreference: ICELocalInterfaces.localPreference(of: ip, among: hostAddresses))))
        }.get()
        guard let base else { return nil }
        let channel: any Channel
        do {
            channel = try await DatagramBootstrap(group: eventLoop)
                .channelOption(.socketOption(.so_rcvbuf), value: 4 << 20)
                .channelInitializer { [self] channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(ICEDatagramHandler(agent: self, base: base.id)) }
                }
                .bind(host: ip.description, port: 0).get()
        } catch {
            _ = try? await eventLoop.submit { [self] in
                opening.remove(ip)
                discard(base)
            }.get()
            throw error
        }
        return try await eventLoop.submit { [self] () -> ICEBase? in
            opening.remove(ip)
            guard !closed, !base.isClosed else {
                channel.close(promise: nil)
                return nil
            }
            base.channel = channel
            base.candidate.address.port = UInt16(channel.localAddress?.port ?? 0)
            return base
        }.get()
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
                    guard !closed, !base.isClosed, bases[base.id] === base else { channel.close(promise: nil); return }
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

    /// The allocator for buffers handed to ``write(_:headroom:flush:)``.
    public var allocator: ByteBufferAllocator { route?.base.channel?.allocator ?? ByteBufferAllocator() }

    /// Bytes to leave free before a packet for ``write(_:headroom:flush:)``: the RFC 4571
    /// length on an ICE-TCP route, so the packet is allocated once; 0 otherwise.
    public var framingHeadroom: Int { route?.base.kind == .tcpActive ? RFC4571Framer.prefixLength : 0 }

    /// Sends a packet (DTLS, SRTP) over the selected pair; false when none is selected yet, or
    /// when an ICE-TCP route is backed up (the packet is dropped rather than queued without end).
    /// - Parameter headroom: bytes before the packet in `buffer` (``framingHeadroom`` when the
    ///   caller left it, else 0).
    @discardableResult
    public func write(_ buffer: ByteBuffer, headroom: Int = 0, flush: Bool = true) -> Bool {
        guard let route, let channel = route.base.channel else { return false }
        var buffer = buffer
        switch route.base.kind {
        case .udp:
            buffer.moveReaderIndex(forwardBy: headroom)
            channel.write(AddressedEnvelope(remoteAddress: route.destination, data: buffer), promise: nil)
        case .tcpActive:
            guard channel.isWritable else { return false }
            let length = buffer.readableBytes - headroom
            guard let prefix = UInt16(exactly: length) else { return false }
            if headroom == RFC4571Framer.prefixLength {
                buffer.setInteger(prefix, at: buffer.readerIndex)
            } else {
                buffer.moveReaderIndex(forwardBy: headroom)
                var framed = channel.allocator.buffer(capacity: RFC4571Framer.prefixLength + length)
                framed.writeInteger(prefix)
                framed.writeBuffer(&buffer)
                buffer = framed
            }
            channel.write(buffer, promise: nil)
        case .relay:
            buffer.moveReaderIndex(forwardBy: headroom)
            guard let wrapped = try? route.base.allocation?.wrap(Array(buffer.readableBytesView), to: route.remote.address) else { return false }
            writeToServer(wrapped, base: route.base)
            return true
        }
        if flush { channel.flush() }
        return true
    }

    /// Flushes writes made with `flush: false`.
    public func flush() { route?.base.channel?.flush() }

    // MARK: Input

    func receiveDatagram(_ bytes: UnsafeMutableRawBufferPointer, from source: SocketAddress, base id: Int) {
        guard let base = bases[id], bytes.count > 0 else { return }
        if base.isRelay {
            // Only the TURN server speaks on a relay socket: responses, Data indications, ChannelData.
            guard source == base.peer else { return }
            return handleTURN(base.allocation?.receive(Array(bytes), now: .now) ?? [], base: base)
        }
        guard Demux.classify(first: bytes[0], second: bytes.count > 1 ? bytes[1] : nil) == .stun else {
            // DTLS, SRTP, SRTCP, whichever path they came on (the remote may still use the previous
            // one for a moment after a new nomination); no address conversion per packet.
            onData?(bytes)
            return
        }
        guard let stunSource = STUNAddress(source) else { return }
        receive(bytes, from: stunSource, base: base)
    }

    func receiveStream(_ bytes: UnsafeRawBufferPointer, base id: Int) {
        guard let base = bases[id] else { return }
        if base.isRelay {
            return handleTURN(base.allocation?.receive(Array(bytes), now: .now) ?? [], base: base)
        }
        guard let remote = base.peerAddress else { return }
        do {
            try base.framer.append(bytes)
            while var frame = try base.framer.nextFrame() {
                frame.withUnsafeMutableBytes { receive($0, from: remote, base: base) }
            }
        } catch {
            base.channel?.close(promise: nil)   // the stream lost its framing: channelInactive follows
        }
    }

    func streamClosed(base id: Int) {
        guard let base = bases[id] else { return }
        base.channel = nil
        baseFailed(base)
    }
}
