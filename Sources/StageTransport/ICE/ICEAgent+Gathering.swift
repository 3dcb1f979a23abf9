import NIOCore
import NIOPosix
import StageWire

/// Gathering (RFC 8445 §5.1.1): host candidates, server-reflexive ones from STUN Binding
/// (RFC 8489), relayed ones from TURN Allocate (RFC 8656).
extension ICEAgent {
    /// Gathers every candidate: host sockets at once, then STUN and TURN servers for at most
    /// `configuration.gatheringTimeout`. Call once, before the offer.
    public func gather() async throws {
        let addresses = configuration.localAddresses ?? ICELocalInterfaces.usableAddresses()
        try await eventLoop.submit { [self] in hostAddresses = addresses }.get()
        if configuration.transportPolicy == .all {
            var opened = 0
            var lastError: (any Error)?
            for ip in addresses {
                do {
                    if try await openHostSocket(on: ip) != nil { opened += 1 }
                } catch {
                    lastError = error
                }
            }
            if opened == 0, configuration.servers.isEmpty {
                throw NegotiationError("ICE: no usable local address (\(addresses.map(\.description).joined(separator: ", "))): \(lastError.map { "\($0)" } ?? "none found")")
            }
        }
        guard !configuration.servers.isEmpty else { return }
        let resolved = await resolve(configuration.servers)
        let done = try await eventLoop.submit { [self] () -> EventLoopFuture<Void> in
            let promise = eventLoop.makePromise(of: Void.self)
            guard !closed else {
                promise.succeed()
                return promise.futureResult
            }
            gatheringDone = promise
            for (server, address) in resolved {
                switch server.url.scheme {
                case .stun: askForServerReflexive(address)
                case .turn: allocateRelay(server, at: address)
                }
            }
            if pendingGathering == 0 { promise.succeed() }
            eventLoop.scheduleTask(in: TimeAmount(configuration.gatheringTimeout)) { promise.succeed() }
            return promise.futureResult
        }.get()
        try await done.get()
    }

    /// Server addresses by name lookup (off the event loop: getaddrinfo blocks).
    func resolve(_ servers: [ICEConfiguration.Server]) async -> [(ICEConfiguration.Server, SocketAddress)] {
        var resolved: [(ICEConfiguration.Server, SocketAddress)] = []
        for server in servers {
            let host = server.url.host, port = Int(server.url.port)
            let address = try? await NIOThreadPool.singleton.runIfActive { try SocketAddress.makeAddressResolvingHost(host, port: port) }
            if let address { resolved.append((server, address)) }
        }
        return resolved
    }

    /// STUN answers and TURN allocations still awaited.
    var pendingGathering: Int {
        bases.values.filter(\.pendingGathering).count + gatherTransactions.count
    }

    /// One awaited answer came (or will not come): when none is left, gathering is complete
    /// and, if checks run, running out of pairs becomes a failure again.
    func finishGathering(_ base: ICEBase? = nil) {
        base?.pendingGathering = false
        guard pendingGathering == 0 else { return }
        gatheringDone?.succeed()
        checkList.expectingMoreLocals = false
        if started { runChecks() }
    }

    // MARK: Server reflexive

    /// A Binding request to the STUN server from every non-loopback host socket of its family,
    /// sent again at 250 and 750 ms (RFC 8489 §6.2.1, shortened: gathering is bounded anyway).
    private func askForServerReflexive(_ server: SocketAddress) {
        guard let serverAddress = STUNAddress(server) else { return }
        for base in bases.values where base.kind == .udp && !base.candidate.isLoopback && base.candidate.address.ip.isIPv4 == serverAddress.ip.isIPv4 {
            let transaction = STUNTransactionID.random()
            gatherTransactions[transaction] = base.id
            let request = STUNMessageBuilder(type: .bindingRequest, transactionID: transaction).finish(fingerprint: true)
            for delay in [0, 250, 750] {
                eventLoop.scheduleTask(in: .milliseconds(Int64(delay))) { [weak self] in
                    guard let self, self.gatherTransactions[transaction] != nil, !base.isClosed else { return }
                    self.send(request, base: base, to: serverAddress)
                }
            }
            eventLoop.scheduleTask(in: .milliseconds(1500)) { [weak self] in
                guard let self, self.gatherTransactions.removeValue(forKey: transaction) != nil else { return }
                self.finishGathering()
            }
        }
    }

    /// The STUN server's answer (RFC 8489 §14.2): our address as it saw it, if it differs from the base's.
    func serverReflexiveFound(_ message: STUNMessage, from source: STUNAddress, base id: Int) {
        defer { finishGathering() }
        guard message.type == .bindingSuccess, let mapped = (try? message.xorMappedAddress) ?? nil, let base = bases[id],
              mapped != base.candidate.address, !serverReflexive.contains(where: { $0.address == mapped }) else { return }
        let preference = UInt16(truncatingIfNeeded: base.candidate.priority >> 8)
        serverReflexive.append(ICECandidate(foundation: foundation(for: "srflx-\(base.candidate.address.ip)-\(source)"), type: .srflx, transport: .udp,
                                            address: mapped, priority: ICEPriority.candidate(type: .srflx, localPreference: preference),
                                            relatedAddress: base.candidate.address))
    }

    // MARK: Relayed

    /// An allocation on the TURN server, over UDP (a socket of its own) or TCP (a connection).
    func allocateRelay(_ server: ICEConfiguration.Server, at address: SocketAddress) {
        guard !closed, let username = server.username, let password = server.credential, let serverAddress = STUNAddress(address) else { return }
        let transport: ICETransportProtocol = server.url.transport == .tcp ? .tcp : .udp
        // Relays through UDP rank above those through TCP (RFC 8445 §5.1.2.1 leaves the order to us).
        let preference: UInt16 = transport == .udp ? 65535 : 65279
        let base = makeBase(kind: .relay(transport), candidate: ICECandidate(
            foundation: foundation(for: "relay-\(server.url)"), type: .relay, transport: .udp,
            address: STUNAddress(ip: serverAddress.ip.isIPv4 ? .v4(0) : .v6(high: 0, low: 0), port: 0),
            priority: ICEPriority.candidate(type: .relay, localPreference: preference), relayProtocol: transport))
        base.peer = address
        base.peerAddress = serverAddress
        base.pendingGathering = true
        base.allocation = TURNAllocation(configuration: .init(username: username, password: password, transport: transport == .tcp ? .tcp : .udp,
                                                              requestedAddressFamily: serverAddress.ip.isIPv4 ? nil : .ipv6))
        let started: EventLoopFuture<any Channel>
        if transport == .udp {
            started = DatagramBootstrap(group: eventLoop)
                .channelInitializer { [self] channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(ICEDatagramHandler(agent: self, base: base.id)) }
                }
                .bind(host: serverAddress.ip.isIPv4 ? "0.0.0.0" : "::", port: 0)
        } else {
            started = ClientBootstrap(group: eventLoop)
                .connectTimeout(.seconds(3))
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { [self] channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(ICEStreamHandler(agent: self, base: base.id)) }
                }
                .connect(to: address)
        }
        started.whenComplete { [self] result in
            switch result {
            case .success(let channel):
                guard !closed, !base.isClosed, bases[base.id] === base else {
                    channel.close(promise: nil)
                    return discard(base)
                }
                base.channel = channel
                handleTURN(base.allocation?.start(now: .now) ?? [], base: base)
            case .failure:
                discard(base)
            }
        }
    }

    /// New allocations beside the old ones (after the local path changed under them); the old
    /// ones stay usable until a pair on another base is selected, then they are deleted.
    func regatherRelays() {
        let servers = configuration.servers.filter { $0.url.scheme == .turn }
        guard !servers.isEmpty else { return }
        for base in bases.values where base.isRelay { base.retired = true }
        let generation = recheckGeneration
        Task { [self] in
            let resolved = await resolve(servers)
            eventLoop.execute { [self] in
                guard !closed, generation == recheckGeneration else { return }
                for (server, address) in resolved { allocateRelay(server, at: address) }
                checkList.expectingMoreLocals = pendingGathering > 0
            }
        }
    }

    /// CreatePermission and ChannelBind for every remote UDP candidate of the family, on every allocation.
    func permitRemotes() {
        for base in bases.values where base.allocation != nil { permitRemotes(on: base) }
    }

    private func permitRemotes(on base: ICEBase) {
        for remote in remoteCandidates where remote.transport == .udp && remote.address.ip.isIPv4 == base.candidate.address.ip.isIPv4 {
            if let events = try? base.allocation?.permit(remote.address, now: .now) { handleTURN(events, base: base) }
        }
    }

    /// What a TURN allocation asks for or tells.
    func handleTURN(_ events: [TURNAllocation.Event], base: ICEBase) {
        var timersChanged = false
        for event in events {
            switch event {
            case .data(let peer, var payload):
                payload.withUnsafeMutableBytes { receive($0, from: peer, base: base) }
                continue   // the media path: no timer work per packet
            case .send(let bytes):
                writeToServer(bytes, base: base)
            case .allocated(let relayed, let mapped, _):
                base.candidate.address = relayed
                base.candidate.relatedAddress = mapped
                if let mapped, base.kind == .relay(.udp), !serverReflexive.contains(where: { $0.address == mapped }) {
                    serverReflexive.append(ICECandidate(foundation: foundation(for: "srflx-turn-\(base.candidate.foundation)"), type: .srflx,
                                                        transport: .udp, address: mapped,
                                                        priority: ICEPriority.candidate(type: .srflx, localPreference: 65535)))
                }
                if started {
                    permitRemotes(on: base)
                    checkList.add(local: base.candidate, base: base.id, remotes: remoteCandidates)
                }
                finishGathering(base)
            case .failed:
                baseFailed(base)
                return
            case .refreshed, .permissionCreated, .channelBound, .permissionFailed, .channelBindFailed, .closed:
                break
            }
            timersChanged = true
        }
        if timersChanged { scheduleTURNTimer(base) }
    }

    private func scheduleTURNTimer(_ base: ICEBase) {
        base.turnTimer?.cancel()
        guard !base.isClosed, let deadline = base.allocation?.nextTimeout else { return }
        base.turnTimer = eventLoop.scheduleTask(in: TimeAmount(deadline - .now)) { [weak self] in
            guard let self, !base.isClosed else { return }
            self.handleTURN(base.allocation?.tick(now: .now) ?? [], base: base)
        }
    }
}
