import NIOCore
import StageWire

/// Connectivity checks (RFC 8445 §7.2), nomination, consent (RFC 7675) and checking again
/// when the path goes away.
extension ICEAgent {
    /// Starts checking the remote's candidates (from its answer): call once, on the event loop,
    /// after ``gather()``.
    public func start(remoteUfrag: String, remotePassword: String, candidates: [ICECandidate]) {
        eventLoop.preconditionInEventLoop()
        guard !started, !closed else { return }
        started = true
        self.remoteUfrag = remoteUfrag
        self.remotePassword = remotePassword
        remoteCandidates = candidates
        permitRemotes()
        restartChecks()
        lastConsent = .now()
        consentTask = eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(900), delay: .milliseconds(1000)) { [weak self] _ in
            self?.keepConsent()
        }
        monitorTask = eventLoop.scheduleRepeatedTask(initialDelay: interfacePollInterval, delay: interfacePollInterval) { [weak self] _ in
            self?.watchInterfaces()
        }
    }

    /// The local candidates to pair: ready host UDP, TCP active (one base per passive remote
    /// candidate and host address, made here) and allocated relays; relays only under the
    /// `relay` policy.
    private func checkableLocals() -> [(candidate: ICECandidate, base: Int)] {
        if configuration.tcpCandidates, configuration.transportPolicy == .all { makeTCPBases() }
        return bases.values.sorted { $0.id < $1.id }.compactMap { base in
            guard !base.isClosed else { return nil }
            switch base.kind {
            case .udp where configuration.transportPolicy == .all && base.channel != nil: break
            case .tcpActive where configuration.transportPolicy == .all: break
            case .relay where base.allocation?.relayedAddress != nil: break
            default: return nil
            }
            return (base.candidate, base.id)
        }
    }

    /// One TCP base per (host address, passive remote candidate) not made yet (RFC 6544 §6.2).
    private func makeTCPBases() {
        let passive = remoteCandidates.filter { $0.transport == .tcp && $0.tcpType == .passive }
        let existing = Set(bases.values.filter { $0.kind == .tcpActive && !$0.isClosed }.compactMap { base in
            base.peer.map { "\(base.candidate.address.ip) \($0)" }
        })
        for ip in hostAddresses {
            for remote in passive where remote.address.ip.isIPv4 == ip.isIPv4 && remote.isLoopback == ip.isLoopback {
                guard let peer = try? SocketAddress(remote.address), !existing.contains("\(ip) \(peer)") else { continue }
                let preference = ICEPriority.tcpLocalPreference(.active, other: 8191 - UInt16(min(hostAddresses.firstIndex(of: ip) ?? 0, 8191)))
                let base = makeBase(kind: .tcpActive, candidate: ICECandidate(
                    foundation: foundation(for: "tcp-host-\(ip)"), type: .host, transport: .tcp, tcpType: .active,
                    address: STUNAddress(ip: ip, port: 0), priority: ICEPriority.candidate(type: .host, localPreference: preference)))
                base.peer = peer
            }
        }
    }

    /// (Re)forms the check list from the bases there are now and starts checking.
    func restartChecks() {
        checkList.restart(locals: checkableLocals(), remotes: remoteCandidates)
        checkList.expectingMoreLocals = pendingGathering > 0
        runChecks()
    }

    /// Runs what the check list says is due, then sleeps until its next deadline.
    func runChecks() {
        guard started, !closed else { return }
        handle(checkList.tick(now: .now))
        checkTimer?.cancel()
        if let deadline = checkList.nextDeadline {
            let delay = max(.zero, deadline - .now)
            checkTimer = eventLoop.scheduleTask(in: .nanoseconds(Int64(delay.components.seconds) * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000)) { [weak self] in
                self?.runChecks()
            }
        }
    }

    func handle(_ outputs: [ICECheckList.Output]) {
        for output in outputs {
            switch output {
            case .check(let id, let transaction, let useCandidate):
                guard let pair = checkList.pair(id), let base = bases[pair.base], !base.isClosed else {
                    handle(checkList.fail(pair: id, now: .now))
                    continue
                }
                // RFC 8445 §7.1.1: PRIORITY is what a peer-reflexive candidate of this base would have.
                let priority = ICEPriority.candidate(type: .prflx, localPreference: UInt16(truncatingIfNeeded: pair.local.priority >> 8))
                let request = bindingRequest(transaction: transaction, priority: priority, useCandidate: useCandidate)
                if !send(request, base: base, to: pair.remote.address) { handle(checkList.fail(pair: id, now: .now)) }
            case .selected(let id):
                select(id)
            case .failed:
                rechecking = false
                if route == nil { onFailed?("no candidate pair works (\(checkList.pairs.count) tried)") }
            }
        }
    }

    /// A Binding request to the remote with our role, integrity from its password and a FINGERPRINT.
    func bindingRequest(transaction: STUNTransactionID, priority: UInt32?, useCandidate: Bool) -> [UInt8] {
        var builder = STUNMessageBuilder(type: .bindingRequest, transactionID: transaction)
        try? builder.appendUsername("\(remoteUfrag):\(credentials.ufrag)")
        if let priority { builder.appendPriority(priority) }
        builder.appendICEControlling(tieBreaker: tieBreaker)
        if useCandidate { builder.appendUseCandidate() }
        return builder.finish(integrityKey: STUNMessage.shortTermKey(password: remotePassword), hmacSHA1: MediaEngine.hmacSHA1)
    }

    private func select(_ id: Int) {
        guard let pair = checkList.pair(id), let base = bases[pair.base], let destination = try? SocketAddress(pair.remote.address) else { return }
        var local = base.candidate
        if case .relay(let transport) = base.kind { local.relayProtocol = transport }
        route = Route(pair: id, base: base, local: local, remote: pair.remote, destination: destination)
        rechecking = false
        lastConsent = .now()
        lastHeard = .now()
        closeUnusedTCPBases()
        if let route { onSelected?(statistics(of: route)) }
    }

    /// TCP connections of pairs that lost: closed, so the server does not keep them.
    private func closeUnusedTCPBases() {
        for base in bases.values where base.kind == .tcpActive && base !== route?.base {
            base.isClosed = true
            base.channel?.close(promise: nil)
            bases[base.id] = nil
        }
    }

    /// A base's socket or connection is gone: its pairs fail; if media used it, check again.
    func baseFailed(_ base: ICEBase) {
        base.isClosed = true
        for pair in checkList.pairs where pair.base == base.id { handle(checkList.fail(pair: pair.id, now: .now)) }
        if route?.base === base { recheck() }
    }

    // MARK: STUN in

    /// A packet from `source` on `base`: STUN is ours to read, the rest goes to `onData`.
    func receive(_ bytes: UnsafeMutableRawBufferPointer, from source: STUNAddress, base: ICEBase) {
        guard bytes.count > 0 else { return }
        guard Demux.classify(first: bytes[0], second: bytes.count > 1 ? bytes[1] : nil) == .stun else {
            return receiveData(bytes, base: base)
        }
        guard let message = try? STUNMessage(parsing: UnsafeRawBufferPointer(bytes)) else { return }
        switch message.type {
        case .bindingRequest:
            answerCheck(message, from: source, base: base)
        case .bindingSuccess, .bindingError:
            if let gatheringBase = gatherTransactions.removeValue(forKey: message.transactionID) {
                serverReflexiveFound(message, base: gatheringBase)
            } else {
                receiveResponse(message, base: base)
            }
        default:
            return
        }
    }

    /// DTLS, SRTP and SRTCP for the peer connection, whichever path it came on (the remote may
    /// still use the previous one for a moment after a new nomination).
    func receiveData(_ bytes: UnsafeMutableRawBufferPointer, base: ICEBase) {
        if route?.base === base { lastHeard = .now() }
        onData?(bytes)
    }

    /// A full remote agent checks us too: answer with our password (RFC 8445 §7.3).
    private func answerCheck(_ message: STUNMessage, from source: STUNAddress, base: ICEBase) {
        guard message.verifyIntegrity(key: STUNMessage.shortTermKey(password: credentials.password), hmacSHA1: MediaEngine.hmacSHA1) else { return }
        send(STUNMessageBuilder.bindingSuccess(transactionID: message.transactionID, source: source,
                                               localPassword: credentials.password, hmacSHA1: MediaEngine.hmacSHA1), base: base, to: source)
    }

    private func receiveResponse(_ message: STUNMessage, base: ICEBase) {
        let success = message.type == .bindingSuccess
        if success, !message.verifyIntegrity(key: STUNMessage.shortTermKey(password: remotePassword), hmacSHA1: MediaEngine.hmacSHA1) { return }
        if !success {
            // RFC 8489 §9.1.3: 401 — the remote has no such credentials (its session ended).
            if (try? message.errorCode)??.code == 401 { onRemoteForgot?() }
        }
        if let sent = consentInFlight.removeValue(forKey: message.transactionID) {
            guard success, let route else { return }
            lastConsent = .now()
            lastHeard = .now()
            let roundTrip = NIODeadline.now() - sent
            checkList.updateRoundTrip(pair: route.pair, .nanoseconds(roundTrip.nanoseconds))
            return
        }
        if route?.base === base, success { lastHeard = .now() }
        handle(checkList.receiveResponse(transactionID: message.transactionID, success: success, mapped: (try? message.xorMappedAddress) ?? nil, now: .now))
        runChecks()
    }

    // MARK: Consent and path changes

    /// RFC 7675 §5.1: a check on the selected pair every second; unanswered for `recheckAfter`,
    /// every path is checked again.
    private func keepConsent() {
        guard let route, !closed else { return }
        consentInFlight = consentInFlight.filter { NIODeadline.now() - $0.value < .seconds(10) }
        let transaction = STUNTransactionID.random()
        consentInFlight[transaction] = .now()
        send(bindingRequest(transaction: transaction, priority: nil, useCandidate: false), base: route.base, to: route.remote.address)
        if NIODeadline.now() - lastConsent > recheckAfter, !rechecking { recheck() }
    }

    /// Looks at the local addresses; when the one media leaves from is gone, checks again now.
    private func watchInterfaces() {
        guard configuration.localAddresses == nil, !closed else { return }
        let now = ICELocalInterfaces.usableAddresses()
        guard now != hostAddresses else { return }
        let routeAddress = route.map(\.base.candidate.address.ip)
        hostAddresses = now
        if let routeAddress, route?.base.kind != .relay(.udp), route?.base.kind != .relay(.tcp), !now.contains(routeAddress) {
            recheck()
        } else if route == nil || rechecking {
            recheck()
        }
    }

    /// Checks every path again with what exists now (new host sockets for new addresses, old
    /// ones closed, relays allocated again when their path changed), keeping the current route
    /// until a new pair is selected: the remote moves its side on our nominated check, so media
    /// resumes without a new offer (the existing renegotiation stays the fallback).
    func recheck() {
        guard started, !closed else { return }
        rechecking = true
        let current = configuration.localAddresses ?? ICELocalInterfaces.usableAddresses()
        hostAddresses = current
        for base in bases.values where base.kind == .udp || base.kind == .tcpActive {
            if !current.contains(base.candidate.address.ip) || base.isClosed {
                base.isClosed = true
                base.channel?.close(promise: nil)
                bases[base.id] = nil
            }
        }
        let known = Set(bases.values.filter { $0.kind == .udp }.map(\.candidate.address.ip))
        let missing = current.filter { !known.contains($0) }
        let relayBroken = route.map { if case .relay = $0.base.kind { true } else { false } } ?? false
        Task { [self] in
            for ip in missing { _ = try? await openHostSocket(on: ip) }
            eventLoop.execute { [self] in
                if relayBroken { regatherRelays() }
                restartChecks()
            }
        }
    }

    // MARK: Statistics

    func statistics(of route: Route) -> ICEPairStatistics {
        ICEPairStatistics(local: route.local, remote: route.remote, roundTrip: checkList.pair(route.pair)?.roundTrip,
                          nominated: true)
    }
}

/// The selected candidate pair as W3C webrtc-stats describe it (`candidate-pair` with its
/// `local-candidate` and `remote-candidate`).
public struct ICEPairStatistics: Sendable, Hashable {
    public var local: ICECandidate
    public var remote: ICECandidate
    /// Of the latest check or consent answer on the pair.
    public var roundTrip: Duration?
    public var nominated: Bool

    public var roundTripSeconds: Double? {
        roundTrip.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }
    }

    /// `host udp → host udp`-style one-liner for logs and the CLI.
    public var summary: String {
        var text = "\(local.type.rawValue)/\(local.transport.rawValue)"
        if let relay = local.relayProtocol { text += " via TURN/\(relay.rawValue)" }
        return text + " \(local.address) → \(remote.type.rawValue)/\(remote.transport.rawValue) \(remote.address)"
    }
}
