public import StageWire

/// The client side of one TURN allocation (RFC 8656) as a sans-I/O state machine: it builds
/// and reads messages and keeps the timers, and the caller moves the bytes and the clock.
///
/// ```swift
/// var turn = TURNAllocation(configuration: .init(username: "alice", password: "secret", transport: .udp))
/// handle(turn.start(now: .now))                      // → .send(Allocate)
/// // for every datagram (UDP) or read (TCP) from the server:
/// handle(turn.receive(bytes, now: .now))             // → .send(authenticated Allocate) … .allocated(…)
/// handle(try turn.permit(peer, now: .now))           // CreatePermission + ChannelBind
/// send(try turn.wrap(payload, to: peer))             // ChannelData once bound, else a Send indication
/// handle(turn.tick(now: .now))                       // at turn.nextTimeout: retransmits, refreshes
/// handle(turn.close(now: .now))                      // Refresh LIFETIME 0 → .closed
/// ```
///
/// - The first Allocate carries no credentials; the server's 401 brings REALM and NONCE and the
///   request is repeated with USERNAME, REALM, NONCE and MESSAGE-INTEGRITY keyed with
///   MD5(username:realm:password) (RFC 8489 §9.2, RFC 8656 §7.1). A 438 Stale Nonce repeats it
///   with the new nonce. Every later request is authenticated; success responses without a
///   matching MESSAGE-INTEGRITY are discarded (RFC 8489 §9.2.5).
/// - Over UDP, requests are retransmitted per RFC 8489 §6.2.1 (RTO 500 ms doubling, Rc = 7
///   sends, then Rm = 16 × RTO); over TCP they are sent once and time out after Ti = 39.5 s.
/// - The allocation is refreshed 60 s before its lifetime ends (half-way for lifetimes under
///   2 min), permissions every 4 min (they last 5, §9) and channel bindings every 9 min (they
///   last 10, §12).
public struct TURNAllocation: Sendable {
    /// The transport to the TURN server. The relayed transport is UDP either way (RFC 8656 §3.1).
    public enum Transport: Hashable, Sendable {
        case udp
        case tcp
    }

    /// Where the allocation stands.
    public enum State: Hashable, Sendable {
        case idle
        case allocating
        case allocated(relayed: STUNAddress)
        case closing
        case closed
        case failed(TURNAllocationError)
    }

    /// What the allocation is made with.
    public struct Configuration: Hashable, Sendable {
        /// Long-term credentials (RFC 8489 §9.2): the username and password the TURN server knows.
        public var username: String
        public var password: String
        public var transport: Transport
        /// LIFETIME to ask for in Allocate and Refresh, seconds; `nil` takes the server's default
        /// (600 s, RFC 8656 §3.2).
        public var requestedLifetime: UInt32?
        /// REQUESTED-ADDRESS-FAMILY; `nil` asks for the default, IPv4 (RFC 8656 §7.1).
        public var requestedAddressFamily: TURNAddressFamily?
        /// SOFTWARE in requests (RFC 8489 §14.14); `nil` for none.
        public var software: String?
        /// RFC 8489 §6.2.1 RTO: the first retransmission's delay, doubled for each next one.
        public var initialRTO: Duration
        /// Rc: transmissions of one request over UDP, the first included.
        public var maximumTransmissions: Int
        /// Rm: after the last transmission, wait Rm × ``initialRTO`` before giving up.
        public var finalWaitMultiplier: Int
        /// Ti: the transaction timeout over TCP (§6.2.2).
        public var tcpTransactionTimeout: Duration
        /// How often a permission is renewed (they expire after 5 min, RFC 8656 §9).
        public var permissionRefreshInterval: Duration
        /// How often a channel binding is renewed (they expire after 10 min, RFC 8656 §12).
        public var channelRefreshInterval: Duration
        /// Consecutive 438 answers to one request before giving up.
        public var maximumStaleNonceRetries: Int

        public init(
            username: String, password: String, transport: Transport,
            requestedLifetime: UInt32? = nil, requestedAddressFamily: TURNAddressFamily? = nil,
            software: String? = "Proscenium", initialRTO: Duration = .milliseconds(500),
            maximumTransmissions: Int = 7, finalWaitMultiplier: Int = 16,
            tcpTransactionTimeout: Duration = .milliseconds(39_500),
            permissionRefreshInterval: Duration = .seconds(240), channelRefreshInterval: Duration = .seconds(540),
            maximumStaleNonceRetries: Int = 3
        ) {
            self.username = username
            self.password = password
            self.transport = transport
            self.requestedLifetime = requestedLifetime
            self.requestedAddressFamily = requestedAddressFamily
            self.software = software
            self.initialRTO = initialRTO
            self.maximumTransmissions = max(1, maximumTransmissions)
            self.finalWaitMultiplier = max(1, finalWaitMultiplier)
            self.tcpTransactionTimeout = tcpTransactionTimeout
            self.permissionRefreshInterval = permissionRefreshInterval
            self.channelRefreshInterval = channelRefreshInterval
            self.maximumStaleNonceRetries = max(0, maximumStaleNonceRetries)
        }
    }

    public let configuration: Configuration
    public internal(set) var state: State = .idle
    /// The relayed and server-reflexive addresses once allocated.
    public internal(set) var relayedAddress: STUNAddress?
    public internal(set) var mappedAddress: STUNAddress?
    /// Incoming bytes dropped, by reason.
    public internal(set) var drops: [DropReason: Int] = [:]

    // Long-term credentials learned from the server's 401 (RFC 8489 §9.2.4).
    var realm: String?
    var nonce: String?
    var key: [UInt8]?

    var transactions: [STUNTransactionID: Transaction] = [:]
    var allocationExpiry: ContinuousClock.Instant?
    var refreshAt: ContinuousClock.Instant?
    var permissions: [IPAddress: Permission] = [:]
    var channels: [STUNAddress: Channel] = [:]
    var peersByChannel: [UInt16: STUNAddress] = [:]
    var nextChannel: UInt16 = STUNMessage.channelNumbers.lowerBound
    var splitter = TURNStreamSplitter()

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Sends the first Allocate (REQUESTED-TRANSPORT UDP, no credentials yet; RFC 8656 §7.1).
    /// Does nothing unless ``state`` is `.idle`.
    public mutating func start(now: ContinuousClock.Instant) -> [Event] {
        guard case .idle = state else { return [] }
        state = .allocating
        var events: [Event] = []
        send(.allocate, now: now, into: &events)
        return events
    }

    /// Installs a permission for `peer`'s IP (CreatePermission, RFC 8656 §10) and, unless
    /// `bindChannel` is false, binds a channel to `peer` (ChannelBind, §12), each unless already
    /// done or under way. Called while allocating, the requests go out once the allocation exists.
    /// - Throws: `notAllocated` when idle, closing, closed or failed.
    public mutating func permit(
        _ peer: STUNAddress, bindChannel: Bool = true, now: ContinuousClock.Instant
    ) throws(TURNAllocationError) -> [Event] {
        switch state {
        case .allocating, .allocated: break
        default: throw .notAllocated
        }
        if permissions[peer.ip] == nil { permissions[peer.ip] = Permission(peer: peer) }
        if bindChannel, channels[peer] == nil, let number = allocateChannelNumber() {
            channels[peer] = Channel(number: number)
            peersByChannel[number] = peer
        }
        var events: [Event] = []
        if case .allocated = state { sendDueRequests(now: now, into: &events) }
        return events
    }

    /// `payload` wrapped for `peer`: a ChannelData message when the channel is bound (padded to
    /// 4 bytes over TCP, §12.5), else a Send indication with XOR-PEER-ADDRESS and DATA (§11.1).
    /// Write the result to the server.
    /// - Throws: `notAllocated` unless allocated; `payloadTooLong` past 65,535 bytes.
    public func wrap(_ payload: [UInt8], to peer: STUNAddress) throws(TURNAllocationError) -> [UInt8] {
        guard case .allocated = state else { throw .notAllocated }
        if let channel = channels[peer], channel.bound {
            do {
                return try TURNChannelData(channel: channel.number, payload: payload)
                    .serialized(padded: configuration.transport == .tcp)
            } catch {
                throw .payloadTooLong(payload.count)
            }
        }
        var builder = STUNMessageBuilder(type: .sendIndication)
        builder.appendXORPeerAddress(peer)
        do {
            try builder.appendData(payload)
        } catch {
            throw .payloadTooLong(payload.count)
        }
        return builder.finish()
    }

    /// Deletes the allocation: Refresh with LIFETIME 0 (RFC 8656 §8), then `.closed` when the
    /// server answers (or the request times out). Without an allocation, `.closed` at once.
    public mutating func close(now: ContinuousClock.Instant) -> [Event] {
        switch state {
        case .allocated:
            state = .closing
            transactions.removeAll()
            var events: [Event] = []
            send(.refresh(lifetime: 0), now: now, into: &events)
            return events
        case .idle, .allocating:
            state = .closed
            transactions.removeAll()
            return [.closed]
        case .closing, .closed, .failed:
            return []
        }
    }

    /// The earliest time ``tick(now:)`` has work: a retransmission, a timeout or a refresh.
    public var nextTimeout: ContinuousClock.Instant? {
        var deadlines = transactions.values.map(\.deadline)
        if case .allocated = state {
            if let refreshAt, !hasTransaction(where: { $0.isRefresh }) { deadlines.append(refreshAt) }
            if let allocationExpiry { deadlines.append(allocationExpiry) }
            deadlines += permissions.values.compactMap { $0.inFlight ? nil : $0.refreshAt }
            deadlines += channels.values.compactMap { $0.inFlight ? nil : $0.refreshAt }
        }
        return deadlines.min()
    }
}
