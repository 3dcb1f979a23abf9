public import NIOCore
import NIOPosix
import StageWire

/// A full ICE agent in the controlling role (RFC 8445) for one peer connection of a client:
/// it gathers host candidates on every usable interface (IPv4 and IPv6), server-reflexive ones
/// from STUN servers and relayed ones from TURN servers (UDP or TCP, RFC 8656), checks every
/// pair against the remote candidates — UDP, and TCP active to passive (RFC 6544) — nominates
/// the best that works, keeps consent (RFC 7675), and when the path dies or the local addresses
/// change it checks again from what is there now and moves the media without a new offer.
///
/// The remote is expected to be the controlled side: an ICE-lite server (ours, Janus with
/// `ice_lite`), which never checks us, or a full agent that answered our offer (we answer its
/// checks). Everything runs on `eventLoop`: call the non-async methods there.
public final class ICEAgent: @unchecked Sendable {
    public let eventLoop: any EventLoop
    /// Change only before ``gather()``.
    public var configuration: ICEConfiguration
    public let credentials: ICECredentials
    let tieBreaker = UInt64.random(in: 0...UInt64.max)

    var bases: [Int: ICEBase] = [:]
    var nextBaseID = 1
    var hostAddresses: [IPAddress] = []
    /// Host addresses whose socket is being bound now (so two rechecks never bind one twice).
    var opening: Set<IPAddress> = []
    var serverReflexive: [ICECandidate] = []
    var remoteUfrag = ""
    var remotePassword = ""
    var remoteCandidates: [ICECandidate] = []
    var checkList = ICECheckList()
    var checkTimer: Scheduled<Void>?
    /// Where media goes: the selected pair's base and remote address.
    var route: Route?
    var started = false
    var closed = false
    var gatheringDone: EventLoopPromise<Void>?
    /// STUN Binding requests to STUN servers: transaction → base.
    var gatherTransactions: [STUNTransactionID: Int] = [:]
    /// Consent checks in flight: transaction → the pair it was sent on and when.
    var consentInFlight: [STUNTransactionID: (pair: Int, sent: NIODeadline)] = [:]
    var consentTask: RepeatedTask?
    var monitorTask: RepeatedTask?
    var lastConsent = NIODeadline.now()
    /// Bumped by each recheck; a recheck's late completion with an older number is dropped.
    var recheckGeneration = 0
    var rechecking = false
    var foundations: [String: String] = [:]

    /// When the remote last proved it is there: an authenticated answer to a check or a consent
    /// request (RFC 7675 §5.1; media is authenticated by SRTP, so its owner counts that itself).
    public internal(set) var lastHeard = NIODeadline.now()
    /// Data (DTLS, SRTP, SRTCP) from the remote, on any path.
    public var onData: ((UnsafeMutableRawBufferPointer) -> Void)?
    /// A pair was selected, first or instead of another: media goes over it from now on.
    public var onSelected: ((ICEPairStatistics) -> Void)?
    /// No pair works and none was ever selected (called at most once).
    public var onFailed: ((String) -> Void)?
    /// The remote answered one of our checks with 401: it does not know these credentials any
    /// more (its session ended). Only answers to our own transactions, from the address they
    /// went to, count.
    public var onRemoteForgot: (() -> Void)?
    /// How long consent may go unanswered before the agent checks every path again (the path
    /// is probably gone; RFC 7675 allows 30 s before giving up, media cannot wait that long).
    public var recheckAfter: TimeAmount = .milliseconds(2500)
    /// How often local addresses are looked at (an address change is acted on within this).
    public var interfacePollInterval: TimeAmount = .milliseconds(500)

    /// A class, so the media path reads one reference per packet rather than copying the fields.
    final class Route {
        let pair: Int
        let base: ICEBase
        let local: ICECandidate
        let remote: ICECandidate
        let destination: SocketAddress

        init(pair: Int, base: ICEBase, local: ICECandidate, remote: ICECandidate, destination: SocketAddress) {
            self.pair = pair
            self.base = base
            self.local = local
            self.remote = remote
            self.destination = destination
        }
    }

    public init(configuration: ICEConfiguration = ICEConfiguration(), eventLoop: any EventLoop, credentials: ICECredentials = .random()) {
        self.configuration = configuration
        self.eventLoop = eventLoop
        self.credentials = credentials
    }

    deinit {
        consentTask?.cancel()
        monitorTask?.cancel()
        checkTimer?.cancel()
    }

    /// The candidates to offer (RFC 8839 §5.1): host UDP (loopback only when nothing else
    /// exists) with a TCP active candidate per host address, server-reflexive and relayed; only
    /// relayed ones under the `relay` policy (the others would reveal the addresses it hides).
    public var localCandidates: [ICECandidate] {
        let relayed = bases.values.sorted { $0.id < $1.id }.compactMap { $0.isRelay && $0.candidate.address.port != 0 ? $0.candidate : nil }
        guard configuration.transportPolicy == .all else { return relayed }
        let hosts = bases.values.sorted { $0.id < $1.id }.compactMap { $0.kind == .udp ? $0.candidate : nil }
        let reachable = hosts.filter { !$0.isLoopback }
        let offeredHosts = reachable.isEmpty ? hosts : reachable
        var tcp: [ICECandidate] = []
        if configuration.tcpCandidates {
            tcp = offeredHosts.enumerated().map { index, udp in
                ICECandidate(foundation: foundation(for: "tcp-host-\(udp.address.ip)"), type: .host, transport: .tcp, tcpType: .active,
                             address: STUNAddress(ip: udp.address.ip, port: 9),   // RFC 6544 §4.5: no port to offer
                             priority: tcpActivePriority(index: index))
            }
        }
        return offeredHosts + serverReflexive + relayed + tcp
    }

    /// RFC 6544 §4.2: active direction, then host address order.
    func tcpActivePriority(index: Int) -> UInt32 {
        ICEPriority.candidate(type: .host, localPreference: ICEPriority.tcpLocalPreference(.active, other: 8191 - UInt16(min(index, 8191))))
    }

    /// The selected pair: its candidates and latest round trip.
    public var selectedPair: ICEPairStatistics? {
        guard let route else { return nil }
        return ICEPairStatistics(local: route.local, remote: route.remote, roundTrip: checkList.pair(route.pair)?.roundTrip)
    }

    /// The local address media leaves from: the selected pair's base (or the first host socket).
    public var localAddress: SocketAddress? {
        route?.base.channel?.localAddress ?? bases.values.sorted { $0.id < $1.id }.first { $0.kind == .udp }?.channel?.localAddress
    }

    /// Skips checks: media goes from the first host socket of the family straight to
    /// `destination` (the benchmark's floor relay, which measures forwarding without ICE).
    public func useFixedRoute(to destination: SocketAddress) throws {
        eventLoop.preconditionInEventLoop()
        guard let target = STUNAddress(destination),
              let base = bases.values.sorted(by: { $0.id < $1.id }).first(where: { $0.kind == .udp && $0.candidate.address.ip.isIPv4 == target.ip.isIPv4 }) else {
            throw NegotiationError("ICE: no host socket for \(destination)")
        }
        let remote = ICECandidate(foundation: "0", type: .host, transport: .udp, address: target, priority: 0)
        route = Route(pair: 0, base: base, local: base.candidate, remote: remote, destination: destination)
    }

    /// A short foundation per (type, base IP, server, transport) (RFC 8445 §5.1.1.3).
    func foundation(for key: String) -> String {
        if let existing = foundations[key] { return existing }
        let value = String(foundations.count + 1)
        foundations[key] = value
        return value
    }

    func makeBase(kind: ICEBase.Kind, candidate: ICECandidate) -> ICEBase {
        let base = ICEBase(id: nextBaseID, kind: kind, candidate: candidate)
        nextBaseID += 1
        bases[base.id] = base
        return base
    }

    /// Forgets a base and closes its socket or connection (a TURN allocation is deleted first).
    func discard(_ base: ICEBase) {
        base.isClosed = true
        base.turnTimer?.cancel()
        if case .allocated = base.allocation?.state {
            for case .send(let bytes) in base.allocation?.close(now: .now) ?? [] { writeToServer(bytes, base: base) }
        }
        if bases[base.id] === base { bases[base.id] = nil }
        if base.pendingGathering { finishGathering(base) }
        let channel = base.channel
        base.channel = nil
        channel?.close(promise: nil)
    }

    /// Closes every socket and connection; TURN allocations are deleted (Refresh, LIFETIME 0).
    public func close() async {
        try? await eventLoop.submit { [self] in
            closed = true
            checkTimer?.cancel()
            consentTask?.cancel()
            monitorTask?.cancel()
            route = nil
            for base in Array(bases.values) { discard(base) }
            gatheringDone?.succeed()
        }.get()
    }
}
