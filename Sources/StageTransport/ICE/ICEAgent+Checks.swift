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
        consentTask = eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(900), delay: .milliseconds(1000)) { [weak self] task in
            guard let self else { return task.cancel() }
            self.keepConsent()
        }
        monitorTask = eventLoop.scheduleRepeatedTask(initialDelay: interfacePollInterval, delay: interfacePollInterval) { [weak self] task in
            guard let self else { return task.cancel() }
            self.watchInterfaces()
        }
    }

    /// TURN allocations still under way: their relayed candidates will join the check list.
    var awaitingRelays: Bool { bases.values.contains { $0.isRelay && $0.pendingGathering } }

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
            base.peerAddress.map { "\(base.candidate.address.ip) \($0)" }
        })
        for (index, ip) in hostAddresses.enumerated() {
            for remote in passive where remote.address.ip.isIPv4 == ip.isIPv4 && remote.isLoopback == ip.isLoopback {
                guard !existing.contains("\(ip) \(remote.address)"), let peer = try? SocketAddress(remote.address) else { continue }
                let base = makeBase(kind: .tcpActive, candidate: ICECandidate(
                    foundation: foundation(for: "tcp-host-\(ip)"), type: .host, transport: .tcp, tcpType: .active,
                    address: STUNAddress(ip: ip, port: 0), priority: tcpActivePriority(index: index)))
                base.peer = peer
                base.peerAddress = remote.address
            }
        }
    }

    /// (Re)forms the check list from the bases there are now and starts checking.
    func restartChecks() {
        checkList.restart(locals: checkableLocals(), remotes: remoteCandidates)
        checkList.expectingMoreLocals = awaitingRelays
        runChecks()
    }

    /// Runs what the check list says is due, then sleeps until its next deadline.
    func runChecks() {
        guard started, !closed else { return }
        handle(checkList.tick(now: .now))
        checkTimer?.cancel()
        if let deadline = checkList.nextDeadline {
            checkTimer = eventLoop.scheduleTask(in: TimeAmount(deadline - .now)) { [weak self] in
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
                let request = bindingRequest(transaction: transaction, local: pair.local, useCandidate: useCandidate)
                if !send(request, base: base, to: pair.remote.address) { handle(checkList.fail(pair: id, now: .now)) }
            case .selected(let id):
                select(id)
            case .failed:
                rechecking = false
                if route == nil {
                    onFailed?("no candidate pair works (\(checkList.pairs.count) tried)")
                    onFailed = nil
                }
            }
        }
    }

    /// A Binding request to the remote (RFC 8445 §7.1.1): USERNAME, PRIORITY of a peer-reflexive
    /// candidate of this base, our role, USE-CANDIDATE when nominating, MESSAGE-INTEGRITY with
    /// the remote's password, FINGERPRINT. Consent checks are the same without USE-CANDIDATE
    /// (RFC 7675 §5.1), so a full remote that has not seen the address learns it as prflx.
    func bindingRequest(transaction: STUNTransactionID, local: ICECandidate, useCandidate: Bool) -> [UInt8] {
        var builder = STUNMessageBuilder(type: .bindingRequest, transactionID: transaction)
        try? builder.appendUsername("\(remoteUfrag):\(credentials.ufrag)")
        builder.appendPriority(ICEPriority.candidate(type: .prflx, localPreference: UInt16(truncatingIfNeeded: local.priority >> 8)))
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
        // TCP connections of pairs that lost, and relays a newer allocation replaced, are closed
        // so neither the server nor the TURN server keeps them.
        for other in Array(bases.values) where other !== base && (other.kind == .tcpActive || other.retired) { discard(other) }
        onSelected?(ICEPairStatistics(local: local, remote: pair.remote, roundTrip: pair.roundTrip))
    }

    /// A base's socket, connection or allocation is gone: its pairs fail; if media used it, check again.
    func baseFailed(_ base: ICEBase) {
        let carriedMedia = route?.base === base
        discard(base)
        for pair in checkList.pairs where pair.base == base.id { handle(checkList.fail(pair: pair.id, now: .now)) }
        if carriedMedia {
            if base.isRelay { regatherRelays() }
            recheck()
        }
    }

    // MARK: STUN in

    /// A packet from `source` on `base`: STUN is ours to read, the rest goes to `onData`.
    func receive(_ bytes: UnsafeMutableRawBufferPointer, from source: STUNAddress, base: ICEBase) {
        guard bytes.count > 0 else { return }
        guard Demux.classify(first: bytes[0], second: bytes.count > 1 ? bytes[1] : nil) == .stun else {
            onData?(bytes)
            return
        }
        guard let message = try? STUNMessage(parsing: UnsafeRawBufferPointer(bytes)) else { return }
        switch message.type {
        case .bindingRequest:
            answerCheck(message, from: source, base: base)
        case .bindingSuccess, .bindingError:
            if gatherTransactions[message.transactionID] == base.id {
                gatherTransactions[message.transactionID] = nil
                serverReflexiveFound(message, from: source, base: base.id)
            } else {
                receiveResponse(message, from: source, base: base)
            }
        default:
            return
        }
    }

    /// A full remote agent checks us too: answer with our password (RFC 8445 §7.3).
    private func answerCheck(_ message: STUNMessage, from source: STUNAddress, base: ICEBase) {
        guard message.verifyIntegrity(key: STUNMessage.shortTermKey(password: credentials.password), hmacSHA1: MediaEngine.hmacSHA1) else { return }
        send(STUNMessageBuilder.bindingSuccess(transactionID: message.transactionID, source: source,
                                               localPassword: credentials.password, hmacSHA1: MediaEngine.hmacSHA1), base: base, to: source)
    }

    /// An answer to a check or a consent request of ours: it counts only for a transaction in
    /// flight, from the address and on the base the request went to (RFC 8445 §7.2.5.2.1), and a
    /// success only with the remote's MESSAGE-INTEGRITY. A 401 says the remote forgot us (it
    /// cannot carry integrity, hence the transaction and address checks); other errors (400,
    /// 487 role conflict: the remote wants to control too) fail the pair.
    private func receiveResponse(_ message: STUNMessage, from source: STUNAddress, base: ICEBase) {
        let success = message.type == .bindingSuccess
        if success, !message.verifyIntegrity(key: STUNMessage.shortTermKey(password: remotePassword), hmacSHA1: MediaEngine.hmacSHA1) { return }
        let forgotten = !success && (try? message.errorCode)??.code == 401
        if let consent = consentInFlight[message.transactionID] {
            guard let route, consent.pair == route.pair, route.base === base, source == route.remote.address else { return }
            consentInFlight[message.transactionID] = nil
            if forgotten {
                onRemoteForgot?()
                return
            }
            guard success else { return }
            lastConsent = .now()
            lastHeard = .now()
            let roundTrip = NIODeadline.now() - consent.sent
            checkList.updateRoundTrip(pair: route.pair, .nanoseconds(roundTrip.nanoseconds))
            return
        }
        guard let pair = checkList.pair(forTransaction: message.transactionID), pair.base == base.id, source == pair.remote.address else { return }
        if route?.base === base, success { lastHeard = .now() }
        if forgotten { onRemoteForgot?() }
        handle(checkList.receiveResponse(transactionID: message.transactionID, success: success, now: .now))
        runChecks()
    }

    // MARK: Consent and path changes

    /// RFC 7675 §5.1: a check on the selected pair every second; unanswered for `recheckAfter`,
    /// every path is checked again.
    private func keepConsent() {
        guard let route, !closed else { return }
        consentInFlight = consentInFlight.filter { NIODeadline.now() - $0.value.sent < .seconds(10) }
        let transaction = STUNTransactionID.random()
        consentInFlight[transaction] = (route.pair, .now())
        send(bindingRequest(transaction: transaction, local: route.local, useCandidate: false), base: route.base, to: route.remote.address)
        if NIODeadline.now() - lastConsent > recheckAfter, !rechecking { recheck() }
    }

    /// Looks at the local addresses; when the one media leaves from is gone, checks again now.
    private func watchInterfaces() {
        guard configuration.localAddresses == nil, !closed else { return }
        let now = ICELocalInterfaces.usableAddresses()
        guard now != hostAddresses else { return }
        hostAddresses = now
        guard let route else { return recheck() }
        let routeAddress = route.base.isRelay ? nil : route.base.candidate.address.ip
        if let routeAddress, !now.contains(routeAddress) {
            recheck()
        } else if route.base.isRelay {
            // The relay's 5-tuple to the TURN server may have changed with the local address.
            regatherRelays()
            recheck()
        }
    }

    /// Checks every path again with what exists now (host sockets for new addresses, the
    /// sockets of vanished ones closed), keeping the current route until a new pair is
    /// selected: the remote moves its side on our nominated check, so media resumes without a
    /// new offer (the existing renegotiation stays the fallback). One at a time: a newer call
    /// supersedes an older one still binding sockets.
    func recheck() {
        guard started, !closed else { return }
        rechecking = true
        recheckGeneration += 1
        let generation = recheckGeneration
        let current = configuration.localAddresses ?? ICELocalInterfaces.usableAddresses()
        hostAddresses = current
        for base in Array(bases.values) where (base.kind == .udp || base.kind == .tcpActive) && !current.contains(base.candidate.address.ip) {
            if route?.base !== base { discard(base) }
        }
        let known = Set(bases.values.filter { $0.kind == .udp && !$0.isClosed }.map(\.candidate.address.ip))
        let missing = configuration.transportPolicy == .all ? current.filter { !known.contains($0) } : []
        Task { [self] in
            for ip in missing { _ = try? await openHostSocket(on: ip) }
            eventLoop.execute { [self] in
                guard !closed, generation == recheckGeneration else { return }
                restartChecks()
            }
        }
    }
}

/// The selected candidate pair as W3C webrtc-stats describe it (`candidate-pair` with its
/// `local-candidate` and `remote-candidate`).
public struct ICEPairStatistics: Sendable, Hashable {
    public var local: ICECandidate
    public var remote: ICECandidate
    /// Of the latest check or consent answer on the pair.
    public var roundTrip: Duration?

    public var roundTripSeconds: Double? {
        roundTrip.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }
    }
}
