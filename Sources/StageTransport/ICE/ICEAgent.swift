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
/// Against an ICE-lite server (ours) the remote never checks us; against a full agent we also
/// answer its checks. Everything runs on `eventLoop`: call the non-async methods there.
public final class ICEAgent: @unchecked Sendable {
    public let eventLoop: any EventLoop
    /// Change only before ``gather()``.
    public var configuration: ICEConfiguration
    public let credentials: ICECredentials
    let tieBreaker = UInt64.random(in: 0...UInt64.max)

    var bases: [Int: ICEBase] = [:]
    var nextBaseID = 1
    var hostAddresses: [IPAddress] = []
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
    var pendingGathering = 0
    var gatheringDone: EventLoopPromise<Void>?
    /// STUN Binding requests to STUN servers: transaction → base.
    var gatherTransactions: [STUNTransactionID: Int] = [:]
    /// Consent checks in flight on the route: transaction → when it left.
    var consentInFlight: [STUNTransactionID: NIODeadline] = [:]
    var consentTask: RepeatedTask?
    var monitorTask: RepeatedTask?
    var lastConsent = NIODeadline.now()
    var rechecking = false
    var foundations: [String: String] = [:]

    /// When anything last arrived on the route (media or a consent answer).
    public internal(set) var lastHeard = NIODeadline.now()
    /// Decrypted-later data (DTLS, SRTP, SRTCP) from the remote, on any path.
    public var onData: ((UnsafeMutableRawBufferPointer) -> Void)?
    /// A pair was selected, first or instead of another: media goes over it from now on.
    public var onSelected: ((ICEPairStatistics) -> Void)?
    /// No pair works (called once, before any was selected).
    public var onFailed: ((String) -> Void)?
    /// The remote answered a check with an error: it does not know these credentials any more.
    public var onRemoteForgot: (() -> Void)?
    /// How long consent may go unanswered before the agent checks every path again (the path
    /// is probably gone; RFC 7675 allows 30 s before giving up, media cannot wait that long).
    public var recheckAfter: TimeAmount = .milliseconds(2500)
    /// How often local addresses are looked at (an address change is acted on within this).
    public var interfacePollInterval: TimeAmount = .milliseconds(500)

    struct Route {
        let pair: Int
        let base: ICEBase
        let local: ICECandidate
        let remote: ICECandidate
        let destination: SocketAddress
    }

    public init(configuration: ICEConfiguration = ICEConfiguration(), eventLoop: any EventLoop, credentials: ICECredentials = .random()) {
        self.configuration = configuration
        self.eventLoop = eventLoop
        self.credentials = credentials
    }

    /// The candidates to offer (RFC 8839 §5.1): host UDP (loopback only when nothing else
    /// exists), TCP active per host address, server-reflexive and relayed.
    public var localCandidates: [ICECandidate] {
        let all = bases.values.sorted { $0.id < $1.id }.map(\.candidate).filter { $0.type != .relay || $0.address.port != 0 }
        let reachable = all.filter { !$0.isLoopback }
        var offered = (reachable.isEmpty ? all : reachable) + serverReflexive
        if configuration.tcpCandidates, configuration.transportPolicy == .all {
            offered += offered.filter { $0.type == .host && $0.transport == .udp }.map { udp in
                var tcp = udp
                tcp.transport = .tcp
                tcp.tcpType = .active
                tcp.address.port = 9   // RFC 6544 §4.5: an active candidate has no port to offer
                tcp.foundation = foundation(for: "tcp-host-\(udp.address.ip)")
                tcp.priority = ICEPriority.candidate(type: .host, localPreference: ICEPriority.tcpLocalPreference(.active, other: 8191))
                return tcp
            }
        }
        return offered
    }

    /// The address media leaves from (the selected pair's local candidate), as text.
    public var selectedPair: ICEPairStatistics? {
        guard let route else { return nil }
        return statistics(of: route)
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

    /// Closes every socket and connection; TURN allocations are deleted (Refresh, LIFETIME 0).
    public func close() async {
        let channels: [any Channel] = (try? await eventLoop.submit { [self] () -> [any Channel] in
            closed = true
            checkTimer?.cancel()
            consentTask?.cancel()
            monitorTask?.cancel()
            gatheringDone?.succeed()
            for base in bases.values where base.allocation != nil {
                let events = base.allocation?.close(now: .now) ?? []
                for case .send(let bytes) in events { writeToServer(bytes, base: base) }
                base.turnTimer?.cancel()
            }
            route = nil
            let channels = bases.values.compactMap(\.channel)
            bases = [:]
            return channels
        }.get()) ?? []
        for channel in channels { try? await channel.close() }
    }
}
