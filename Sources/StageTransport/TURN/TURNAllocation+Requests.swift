import Crypto
import StageWire

/// Requests, retransmissions and refresh timers (RFC 8489 §6.2, RFC 8656 §7–§12).
extension TURNAllocation {
    /// What a request is for.
    enum RequestKind: Hashable, Sendable {
        case allocate
        /// LIFETIME to send: `nil` for the server's default, 0 to delete (§8).
        case refresh(lifetime: UInt32?)
        case createPermission(IPAddress, STUNAddress)
        case channelBind(STUNAddress, UInt16)

        var method: STUNMethod {
            switch self {
            case .allocate: .allocate
            case .refresh: .refresh
            case .createPermission: .createPermission
            case .channelBind: .channelBind
            }
        }
    }

    /// One outstanding request (RFC 8489 §6.2).
    struct Transaction: Sendable {
        var kind: RequestKind
        var bytes: [UInt8]
        /// Sends so far, the first included.
        var transmissions: Int
        /// The delay before the next retransmission (§6.2.1), doubled after each.
        var rto: Duration
        /// When to retransmit or, after the last send, give up.
        var deadline: ContinuousClock.Instant
        /// Whether the request carried MESSAGE-INTEGRITY (so a 401 means wrong credentials and
        /// a success response must be integrity-protected).
        var authenticated: Bool
        /// 438 answers in a row for this request.
        var staleNonceRetries: Int

        var isRefresh: Bool { if case .refresh = kind { true } else { false } }
    }

    /// A permission for one peer IP (RFC 8656 §9).
    struct Permission: Sendable {
        /// The address the permission was asked for (§10.1: only its IP counts).
        var peer: STUNAddress
        var installed = false
        var inFlight = false
        /// When to renew; `nil` while not yet installed (due at once).
        var refreshAt: ContinuousClock.Instant?
    }

    /// A channel bound, or being bound, to one peer transport address (RFC 8656 §12).
    struct Channel: Sendable {
        var number: UInt16
        var bound = false
        var inFlight = false
        var refreshAt: ContinuousClock.Instant?
    }

    func hasTransaction(where predicate: (Transaction) -> Bool) -> Bool {
        transactions.values.contains(where: predicate)
    }

    /// The next free channel number (0x4000–0x4FFF, §12), or `nil` when all 4096 are taken:
    /// then that peer is reached with Send indications only.
    mutating func allocateChannelNumber() -> UInt16? {
        let range = STUNMessage.channelNumbers
        for _ in 0..<range.count {
            let number = nextChannel
            nextChannel = number == range.upperBound ? range.lowerBound : number + 1
            if peersByChannel[number] == nil { return number }
        }
        return nil
    }

    /// Builds a request with a fresh transaction ID, records it and emits it.
    mutating func send(_ kind: RequestKind, now: ContinuousClock.Instant, staleNonceRetries: Int = 0, into events: inout [Event]) {
        let id = STUNTransactionID.random()
        let bytes: [UInt8]
        do {
            bytes = try request(kind, transactionID: id)
        } catch {
            transactionFailed(kind, .cannotBuildRequest(error), into: &events)
            return
        }
        let udp = configuration.transport == .udp
        let firstWait = !udp ? configuration.tcpTransactionTimeout
            : configuration.maximumTransmissions == 1 ? configuration.initialRTO * configuration.finalWaitMultiplier
            : configuration.initialRTO
        transactions[id] = Transaction(
            kind: kind, bytes: bytes, transmissions: 1, rto: configuration.initialRTO, deadline: now + firstWait,
            authenticated: key != nil, staleNonceRetries: staleNonceRetries)
        switch kind {
        case .createPermission(let ip, _): permissions[ip]?.inFlight = true
        case .channelBind(let peer, _): channels[peer]?.inFlight = true
        case .allocate, .refresh: break
        }
        events.append(.send(bytes))
    }

    /// The request's bytes: its attributes, then USERNAME, NONCE, REALM and MESSAGE-INTEGRITY
    /// once the server's realm and nonce are known (RFC 8489 §9.2.4), then FINGERPRINT.
    func request(_ kind: RequestKind, transactionID: STUNTransactionID) throws(STUNError) -> [UInt8] {
        var builder = STUNMessageBuilder(
            type: STUNMessageType(method: kind.method, messageClass: .request), transactionID: transactionID)
        switch kind {
        case .allocate:
            builder.appendRequestedTransport(TURNTransportProtocol.udp)
            if let family = configuration.requestedAddressFamily { builder.appendRequestedAddressFamily(family) }
            if let lifetime = configuration.requestedLifetime { builder.appendLifetime(lifetime) }
        case .refresh(let lifetime):
            if let lifetime { builder.appendLifetime(lifetime) }
        case .createPermission(_, let peer):
            builder.appendXORPeerAddress(peer)
        case .channelBind(let peer, let number):
            try builder.appendChannelNumber(number)
            builder.appendXORPeerAddress(peer)
        }
        if let software = configuration.software { try builder.appendSoftware(software) }
        guard let key, let realm, let nonce else { return builder.finish(fingerprint: true) }
        try builder.appendLongTermCredentials(username: configuration.username, realm: realm, nonce: nonce)
        return builder.finish(integrityKey: key, hmacSHA1: TURNCrypto.hmacSHA1, fingerprint: true)
    }

    /// Retransmissions, timeouts, refreshes of the allocation, permissions and channels.
    public mutating func tick(now: ContinuousClock.Instant) -> [Event] {
        var events: [Event] = []
        let due = transactions.filter { $0.value.deadline <= now }.sorted { $0.value.deadline < $1.value.deadline }
        for (id, _) in due {
            guard var transaction = transactions[id] else { continue }
            if configuration.transport == .udp, transaction.transmissions < configuration.maximumTransmissions {
                // RFC 8489 §6.2.1: resend, doubling RTO; after the Rc-th send wait Rm × RTO.
                transaction.transmissions += 1
                transaction.rto = transaction.rto * 2
                transaction.deadline = transaction.transmissions == configuration.maximumTransmissions
                    ? now + configuration.initialRTO * configuration.finalWaitMultiplier
                    : now + transaction.rto
                transactions[id] = transaction
                events.append(.send(transaction.bytes))
            } else {
                transactions[id] = nil
                transactionFailed(transaction.kind, .timedOut(method: transaction.kind.method), into: &events)
            }
        }
        guard case .allocated = state else { return events }
        if let allocationExpiry, allocationExpiry <= now {
            fail(.allocationExpired, into: &events)
            return events
        }
        if let refreshAt, refreshAt <= now, !hasTransaction(where: { $0.isRefresh }) {
            send(.refresh(lifetime: configuration.requestedLifetime), now: now, into: &events)
        }
        sendDueRequests(now: now, into: &events)
        return events
    }

    /// CreatePermission and ChannelBind for every permission and channel that is new or due
    /// for renewal and not already in flight.
    mutating func sendDueRequests(now: ContinuousClock.Instant, into events: inout [Event]) {
        let duePermissions = permissions.filter { !$0.value.inFlight && ($0.value.refreshAt.map { $0 <= now } ?? true) }
        for (ip, permission) in duePermissions.sorted(by: { $0.value.peer.description < $1.value.peer.description }) {
            send(.createPermission(ip, permission.peer), now: now, into: &events)
        }
        let dueChannels = channels.filter { !$0.value.inFlight && ($0.value.refreshAt.map { $0 <= now } ?? true) }
        for (peer, channel) in dueChannels.sorted(by: { $0.value.number < $1.value.number }) {
            send(.channelBind(peer, channel.number), now: now, into: &events)
        }
    }

    /// A request that failed for good: what it means for the allocation.
    mutating func transactionFailed(_ kind: RequestKind, _ error: TURNAllocationError, into events: inout [Event]) {
        switch kind {
        case .allocate:
            fail(error, into: &events)
        case .refresh(let lifetime):
            if lifetime == 0 || state == .closing {
                finishClosing(into: &events)
            } else {
                fail(error, into: &events)
            }
        case .createPermission(let ip, _):
            permissions[ip] = nil
            events.append(.permissionFailed(ip, error))
        case .channelBind(let peer, let number):
            channels[peer] = nil
            peersByChannel[number] = nil
            events.append(.channelBindFailed(peer: peer, error))
        }
    }

    mutating func fail(_ error: TURNAllocationError, into events: inout [Event]) {
        state = .failed(error)
        transactions.removeAll()
        events.append(.failed(error))
    }

    mutating func finishClosing(into events: inout [Event]) {
        state = .closed
        transactions.removeAll()
        permissions.removeAll()
        channels.removeAll()
        peersByChannel.removeAll()
        events.append(.closed)
    }
}
