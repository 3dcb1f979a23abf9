#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import NIOCore
public import NIOPosix
internal import CStageShims

extension MediaEngine {
    /// Whether `host` means every address: then the media port binds IPv4 and IPv6 apart.
    public static func isWildcard(_ host: String) -> Bool { host == "0.0.0.0" || host == "::" }

    /// Binds the UDP media port and starts serving it. A wildcard `host` binds one IPv4 and one
    /// IPv6 socket (`IPV6_V6ONLY`, so IPv4 sources are never v4-mapped) on the same port; on a
    /// machine without IPv6 it logs that and serves IPv4 alone (``udpAddresses`` tells which
    /// families are served). ICE-TCP is started apart, with ``startTCP(host:port:limits:)``.
    /// - Parameter port: the UDP port; 0 picks one (then both families share the one picked).
    /// - Parameter dtlsContext: the DTLS certificate and settings (nil: a new certificate); media
    ///   workers share one, so every answer names the same fingerprint.
    /// - Parameter threadName: given to the event loop's thread (at most 15 bytes), which
    ///   `top -H` and /proc/<pid>/task/<tid>/comm then show; nil leaves NIO's.
    public static func start(host: String, port: Int, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                             dtlsContext: DTLSContext? = nil, threadName: String? = nil) async throws -> MediaEngine {
        let engine = MediaEngine(eventLoop: group.next(), dtlsContext: try dtlsContext ?? DTLSContext(certificate: DTLSCertificate()))
        engine.threadID = try await engine.eventLoop.submit {
            if let threadName { stage_set_thread_name(threadName) }
            return stage_thread_id()
        }.get()
        let sockets = try await engine.bindEvery(host, port: port, what: "media UDP", bind: engine.bindUDP,
                                                 localAddress: \.localAddress, close: { try? await $0.channel.close() })
        try await engine.eventLoop.submit { engine.udpSockets = sockets }.get()
        engine.udpAddresses = sockets.compactMap(\.localAddress)
        engine.localPort = engine.udpAddresses.first?.port ?? port
        engine.eventLoop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { [weak engine] _ in
            engine?.sweep()
        }
        return engine
    }

    /// Starts the ICE-TCP listener (RFC 6544 passive candidates): one TCP port shared by every
    /// peer, on IPv4 and IPv6 like the UDP port (``tcpAddresses`` tells which families are
    /// served). A listener that fails to bind leaves none open.
    /// - Parameter port: 0 picks one.
    public func startTCP(host: String, port: Int, limits: ICETCPLimits = ICETCPLimits()) async throws {
        try await eventLoop.submit { [self] in tcpLimits = limits }.get()
        let listeners = try await bindEvery(host, port: port, what: "ICE-TCP", bind: { try await self.bindTCP($0, limits: limits) },
                                            localAddress: \.localAddress, close: { try? await $0.close() })
        try await eventLoop.submit { [self] in tcpListeners += listeners }.get()
        tcpAddresses = listeners.compactMap(\.localAddress)
        tcpPort = tcpAddresses.first?.port ?? port
    }

    /// Closes the ICE-TCP listeners (the connections they accepted stay until they close):
    /// ICE-TCP is off after it.
    public func stopTCP() async {
        let listeners: [any Channel] = (try? await eventLoop.submit { [self] () -> [any Channel] in
            defer { tcpListeners = [] }
            return tcpListeners
        }.get()) ?? []
        for listener in listeners { try? await listener.close() }
        tcpAddresses = []
        tcpPort = nil
    }

    /// Tries to pick a port free on both families this many times when asked for port 0.
    static let portPickAttempts = 8

    /// Binds one socket per address of `host` (IPv4 then IPv6 for a wildcard), all on one port:
    /// the UDP and TCP loops alike.
    ///
    /// - IPv6 missing on this machine (only for the second address of a wildcard) is logged and
    ///   skipped: the result then holds the IPv4 socket alone, and callers advertise only the
    ///   families they got.
    /// - With `port` 0, the port the first socket got may be in use on the other family: then
    ///   everything bound is closed and another port is picked, up to ``portPickAttempts`` times.
    /// - Any other failure closes what this call bound and is thrown.
    func bindEvery<Bound>(_ host: String, port: Int, what: String, bind: (SocketAddress) async throws -> Bound,
                          localAddress: (Bound) -> SocketAddress?, close: (Bound) async -> Void) async throws -> [Bound] {
        let addresses = try Self.bindAddresses(host)
        var attempt = 1
        while true {
            var bound: [Bound] = []
            do {
                var boundPort = port
                for (index, address) in addresses.enumerated() {
                    do {
                        let socket = try await bind(address.withPort(boundPort))
                        bound.append(socket)
                        if boundPort == 0 { boundPort = localAddress(socket)?.port ?? 0 }
                    } catch where index > 0 && IPv6Support.isUnavailable(error) {
                        logger.notice("IPv6 unavailable: \(what) serves IPv4 only", metadata: ["error": "\(error)"])
                    }
                }
                return bound
            } catch {
                for socket in bound { await close(socket) }
                guard port == 0, !bound.isEmpty, Self.isAddressInUse(error), attempt < Self.portPickAttempts else { throw error }
                attempt += 1
            }
        }
    }

    static func isAddressInUse(_ error: any Error) -> Bool {
        (error as? IOError)?.errnoCode == EADDRINUSE
    }

    /// The addresses to bind for `host`: IPv4 and IPv6 wildcards for a wildcard, else the one
    /// address (a name is resolved).
    static func bindAddresses(_ host: String) throws -> [SocketAddress] {
        if isWildcard(host) {
            return [try SocketAddress(ipAddress: "0.0.0.0", port: 0), try SocketAddress(ipAddress: "::", port: 0)]
        }
        if let literal = try? SocketAddress(ipAddress: host, port: 0) { return [literal] }
        return [try SocketAddress.makeAddressResolvingHost(host, port: 0)]
    }

    /// `IPV6_V6ONLY` at level `IPPROTO_IPV6` (`ChannelOptions.socketOption` would set it at `SOL_SOCKET`).
    private static let ipv6Only = ChannelOptions.Types.SocketOption(level: .ipv6, name: .ipv6_v6only)

    private func bindUDP(_ address: SocketAddress) async throws -> MediaUDPSocket {
        // No SO_REUSEADDR: on Linux it lets a second process bind the same UDP port unnoticed
        // (and take its datagrams); a port in use must stop the server instead.
        let bootstrap = DatagramBootstrap(group: eventLoop)
            .channelOption(.maxMessagesPerRead, value: 32)
            .channelOption(.socketOption(.so_rcvbuf), value: 4 << 20)
            .channelOption(.socketOption(.so_sndbuf), value: 4 << 20)
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: Self.maximumPacketLength))
        // The engine binds the socket itself and keeps its descriptor: SRTP goes out straight
        // through it in batches (`UDPSendBatch`); NIO reads, and sends STUN and DTLS.
        let descriptor = try Self.boundUDPDescriptor(address)
        // From here NIO owns the descriptor (and closes it, whatever happens).
        let channel = try await bootstrap
            .channelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = MediaChannelHandler(engine: self, socket: MediaUDPSocket(channel: channel, descriptor: descriptor))
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
            .withBoundSocket(descriptor)
            .get()
        return try await channel.pipeline.handler(type: MediaChannelHandler.self).map(\.socket).get()
    }

    /// A non-blocking UDP socket bound to `address` (`IPV6_V6ONLY` for IPv6).
    /// - Throws: `IOError` with the `errno` of `socket(2)` or `bind(2)`, as NIO's own bind would.
    private static func boundUDPDescriptor(_ address: SocketAddress) throws -> CInt {
        let family = address.protocol == .inet6 ? AF_INET6 : AF_INET
        let descriptor = socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw IOError(errnoCode: errno, reason: "socket") }
        if address.protocol == .inet6 {
            var on: CInt = 1
            guard setsockopt(descriptor, CInt(IPPROTO_IPV6), IPV6_V6ONLY, &on, socklen_t(MemoryLayout<CInt>.size)) == 0 else {
                let error = IOError(errnoCode: errno, reason: "setsockopt(IPV6_V6ONLY)")
                Glibc.close(descriptor)
                throw error
            }
        }
        let result = address.withSockAddr { Glibc.bind(descriptor, $0, socklen_t($1)) }
        guard result == 0 else {
            let error = IOError(errnoCode: errno, reason: "bind(descriptor:ptr:bytes:)")
            Glibc.close(descriptor)
            throw error
        }
        return descriptor
    }

    private func bindTCP(_ address: SocketAddress, limits: ICETCPLimits) async throws -> any Channel {
        var bootstrap = ServerBootstrap(group: eventLoop)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.writeBufferWaterMark,
                                value: .init(low: limits.sendBufferHighWater / 2, high: limits.sendBufferHighWater))
            .childChannelOption(.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 512, initial: 2048, maximum: 16384))
        if address.protocol == .inet6 { bootstrap = bootstrap.serverChannelOption(Self.ipv6Only, value: 1) }
        return try await bootstrap
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture { try accept(channel) }
            }
            .bind(to: address)
            .get()
    }
}

extension SocketAddress {
    /// The same address with another port.
    func withPort(_ port: Int) -> SocketAddress {
        var copy = self
        copy.port = port
        return copy
    }
}
