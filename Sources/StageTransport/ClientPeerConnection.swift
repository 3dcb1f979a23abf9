import Foundation
public import NIOCore
import NIOPosix
public import StageWire

/// The client end of a WebRTC peer connection (the SDK side, and the benchmark's synthetic
/// peers): a full controlling ICE agent (``ICEAgent``: host, server-reflexive and relayed
/// candidates, UDP and TCP, nomination, consent, new paths when the network changes), DTLS as
/// client (we offer `a=setup:active`), then SRTP. All callbacks run on `eventLoop`.
public final class ClientPeerConnection: @unchecked Sendable {
    public enum Direction: String, Sendable { case sendonly, recvonly }

    /// One media section of our offer.
    public struct Track: Sendable {
        public var mid: String
        public var kind: MediaKind
        public var direction: Direction
        /// Our SSRC for a sending track without simulcast.
        public var ssrc: UInt32
        /// Simulcast layers sent in this section, by rid (RFC 8853), lowest first; the packets of
        /// each carry its rid in the RFC 8852 header extension. Empty: one stream with `ssrc`.
        public var rids: [String]
        /// The `a=msid` track id (RFC 8830): how the server names the stream.
        public var trackId: String
        public init(mid: String, kind: MediaKind, direction: Direction, ssrc: UInt32 = .random(in: 1...UInt32.max),
                    rids: [String] = [], trackId: String? = nil) {
            self.mid = mid
            self.kind = kind
            self.direction = direction
            self.ssrc = ssrc
            self.rids = rids
            self.trackId = trackId ?? mid
        }
    }

    public let tracks: [Track]
    public var credentials: ICECredentials { agent.credentials }
    public let eventLoop: any EventLoop
    let context: DTLSContext
    /// Gathers, checks and carries every packet of the connection.
    public let agent: ICEAgent
    private var remoteReady = false
    private var dtls: DTLSEndpoint?
    private var srtp: SRTPSession?
    private var connectedPromise: EventLoopPromise<Void>?
    /// The keys given to `connectWithoutHandshake`.
    public private(set) var fixedKeys: SRTPKeyingMaterial?
    /// The local address media leaves from (call on `eventLoop`).
    public var localAddress: SocketAddress? { agent.localAddress }
    /// Decrypted RTP received (subscribers).
    public var onRTP: ((UnsafeMutableRawBufferPointer) -> Void)?
    public var onRTCP: ((UnsafeMutableRawBufferPointer) -> Void)?

    public static let payloadTypes: [MediaKind: UInt8] = [.video: 96, .audio: 111]
    /// RTX (RFC 4588) for received video: the server resends lost packets on it.
    public static let retransmissionPayloadType: UInt8 = 97
    /// Header extension ids of our offers: RFC 8843 mid and RFC 8852 rtp-stream-id.
    public static let midExtensionID: UInt8 = 1
    public static let ridExtensionID: UInt8 = 2
    /// The transport-wide sequence number (transport-cc) on what we receive: the server numbers
    /// what it sends us, and we report arrivals (draft-holmer-rmcat-transport-wide-cc-extensions-01).
    public static let transportWideExtensionID: UInt8 = 3
    /// The `a=msid` stream id of our sending tracks.
    public var streamId = "proscenium"
    /// Called once on the event loop when nothing arrived from the server for `receiveTimeout`
    /// after connecting: consent lost (RFC 7675 §5.1), the path or the server is gone.
    public var onTimeout: (() -> Void)?
    public var receiveTimeout: TimeAmount = .seconds(3)
    /// Called once on the event loop when the server closed the connection (DTLS close_notify,
    /// or a 401 answering one of our checks: the server no longer knows this connection).
    public var onClosedByServer: (() -> Void)?
    private var lastReceived = NIODeadline.now()
    private var counters = Statistics()

    /// The transport's counters, as WebRTC's `candidate-pair` stats name them.
    public struct Statistics: Sendable {
        public var packetsSent = 0
        public var bytesSent = 0
        public var packetsReceived = 0
        public var bytesReceived = 0
        /// The selected candidate pair and the latest round trip of a check or consent answer on it.
        public var pair: ICEPairStatistics?
        public var currentRoundTripTime: Double? { pair?.roundTripSeconds }
        /// Every candidate gathered for the offer (host, server-reflexive, relayed).
        public var localCandidates: [ICECandidate] = []
    }

    /// The latest consent round trip in seconds (call on `eventLoop`).
    public var currentRoundTripTime: Double? { agent.selectedPair?.roundTripSeconds }
    /// What `open` gathered, for the offer.
    private var gathered: [ICECandidate] = []

    /// The counters now (any thread).
    public func statistics() async -> Statistics {
        (try? await eventLoop.submit { [self] in
            var statistics = counters
            statistics.pair = agent.selectedPair
            statistics.localCandidates = gathered
            return statistics
        }.get()) ?? Statistics()
    }
    private var livenessTask: RepeatedTask?

    /// - Parameter ice: STUN/TURN servers, the transport policy, and which local addresses to use.
    public init(tracks: [Track], context: DTLSContext, eventLoop: any EventLoop, ice: ICEConfiguration = ICEConfiguration()) {
        self.tracks = tracks
        self.context = context
        self.eventLoop = eventLoop
        agent = ICEAgent(configuration: ice, eventLoop: eventLoop)
    }

    /// Gathers the candidates of the offer: host sockets on every usable interface (or on
    /// `host` only, for a benchmark pinned to one address), then STUN and TURN servers.
    public func open(host: String? = nil) async throws {
        let pinned = try host.map { host in
            guard let ip = IPAddress(host) else { throw NegotiationError("open: \(host) is not an IP address") }
            return [ip]
        }
        try await eventLoop.submit { [self] in
            if let pinned { agent.configuration.localAddresses = pinned }
            agent.onData = { [weak self] bytes in self?.receive(bytes) }
        }.get()
        try await agent.gather()
        try await eventLoop.submit { [self] in gathered = agent.localCandidates }.get()
    }

    /// Our offer (RFC 8829 §5.2): BUNDLE, rtcp-mux, VP8/Opus, our fingerprint, `setup:active`.
    public func offer() -> String {
        var lines = ["v=0", "o=- \(UInt64.random(in: 1..<(1 << 62))) 2 IN IP4 127.0.0.1", "s=-", "t=0 0",
                     "a=group:BUNDLE \(tracks.map(\.mid).joined(separator: " "))", "a=msid-semantic: WMS *"]
        for track in tracks {
            let pt = Self.payloadTypes[track.kind] ?? 96
            let rtx: UInt8? = track.kind == .video && track.direction == .recvonly ? Self.retransmissionPayloadType : nil
            lines += ["m=\(track.kind.rawValue) 9 UDP/TLS/RTP/SAVPF \(pt)\(rtx.map { " \($0)" } ?? "")", "c=IN IP4 0.0.0.0", "a=mid:\(track.mid)",
                      "a=ice-ufrag:\(credentials.ufrag)", "a=ice-pwd:\(credentials.password)",
                      "a=fingerprint:sha-256 \(context.certificate.sdpFingerprint)", "a=setup:active",
                      "a=\(track.direction.rawValue)", "a=rtcp-mux", "a=rtcp-rsize",
                      track.kind == .video ? "a=rtpmap:\(pt) VP8/90000" : "a=rtpmap:\(pt) opus/48000/2"]
            if track.kind == .video { lines += ["a=rtcp-fb:\(pt) nack", "a=rtcp-fb:\(pt) nack pli"] }
            if let rtx { lines += ["a=rtpmap:\(rtx) rtx/90000", "a=fmtp:\(rtx) apt=\(pt)"] }
            // transport-cc both ways: on what we receive, we report arrivals; on what we send,
            // the server reports them to us (the publisher's own estimate).
            lines += ["a=extmap:\(Self.midExtensionID) \(RTPExtensionURI.mid)",
                      "a=extmap:\(Self.transportWideExtensionID) \(RTPExtensionURI.transportWideCC)", "a=rtcp-fb:\(pt) transport-cc"]
            if track.direction == .sendonly {
                lines += ["a=msid:\(streamId) \(track.trackId)"]
                if track.rids.isEmpty {
                    lines += ["a=ssrc:\(track.ssrc) cname:\(streamId)"]
                } else {
                    lines += ["a=extmap:\(Self.ridExtensionID) \(RTPExtensionURI.rtpStreamID)"]
                    lines += track.rids.map { "a=rid:\($0) send" }
                    lines += ["a=simulcast:send \(track.rids.joined(separator: ";"))"]
                }
            }
            lines += candidateLines
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// Our candidates (RFC 8839 §5.1), once gathered.
    private var candidateLines: [String] {
        gathered.map { SDPLine.attribute($0.sdp).description } + ["a=end-of-candidates"]
    }

    /// Our answer to a server's offer (an SFU that offers to its subscribers, like Janus):
    /// receive what it sends, `setup:active`, the offered codec's payload type. Then call
    /// `connect(answer:)` with the server's offer: it holds the server's ICE and DTLS details.
    /// - Throws: when the offerer is a full ICE agent: it would control, and this agent only
    ///   takes the controlling role (RFC 8445 §6.1.1), so only ICE-lite offerers are answered.
    public func answer(to offer: String) throws -> String {
        guard (try? SessionDescription(parsing: offer))?.isICELite == true else {
            throw NegotiationError("offer: only an ICE-lite offerer can be answered (this client is always the controlling agent)")
        }
        let remote = try RemoteOffer(sdp: offer)
        var lines = ["v=0", "o=- \(UInt64.random(in: 1..<(1 << 62))) 2 IN IP4 127.0.0.1", "s=-", "t=0 0",
                     "a=group:BUNDLE \(remote.sections.map(\.mid).joined(separator: " "))", "a=msid-semantic: WMS *"]
        for section in remote.sections {
            let map = section.codec.rtpMap
            let direction = section.direction == .sendonly || section.direction == .sendrecv ? "recvonly" : "inactive"
            lines += ["m=\(section.kind.rawValue) 9 UDP/TLS/RTP/SAVPF \(map.payloadType)", "c=IN IP4 0.0.0.0", "a=mid:\(section.mid)",
                      "a=ice-ufrag:\(credentials.ufrag)", "a=ice-pwd:\(credentials.password)",
                      "a=fingerprint:sha-256 \(context.certificate.sdpFingerprint)", "a=setup:active",
                      "a=\(direction)", "a=rtcp-mux",
                      SDPLine.attribute(map).description]
            lines += candidateLines
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// Remote candidates this client may check (the benchmark pins Janus to one address).
    public var allowedAddress: @Sendable (String) -> Bool = { _ in true }

    /// Applies the remote's answer and connects: ICE checks and nomination, DTLS, SRTP.
    /// Returns once SRTP is ready.
    public func connect(answer: String, timeout: TimeAmount = .seconds(10)) async throws {
        let description: SessionDescription
        do { description = try SessionDescription(parsing: answer) } catch { throw NegotiationError("answer: \(error)") }
        guard let media = description.media.first, let ufrag = media.iceUfrag ?? description.iceUfrag,
              let password = media.icePwd ?? description.icePwd,
              let print = (media.fingerprints + description.fingerprints).first else {
            throw NegotiationError("answer: ICE credentials or fingerprint missing")
        }
        let candidates = media.candidates.filter { allowedAddress($0.address) }.compactMap(ICECandidate.init)
        guard !candidates.isEmpty else {
            throw NegotiationError("answer: no usable candidate (UDP or TCP passive, IPv4 or IPv6 literal) among \(media.candidates.count)")
        }
        let promise = eventLoop.makePromise(of: Void.self)
        try await eventLoop.submit { [self] in
            dtls = try DTLSEndpoint(role: .client, context: context, remoteFingerprint: print.bytes)
            connectedPromise = promise
            agent.onSelected = { [weak self] _ in self?.pathSelected() }
            agent.onFailed = { reason in promise.fail(NegotiationError("connect: \(reason)")) }
            agent.onRemoteForgot = { [weak self] in self?.serverForgotUs() }
            agent.start(remoteUfrag: ufrag, remotePassword: password, candidates: candidates)
            eventLoop.scheduleTask(in: timeout) {
                promise.fail(NegotiationError("connect: no SRTP after \(timeout.nanoseconds / 1_000_000) ms"))
            }
        }.get()
        try await promise.futureResult.get()
    }

    /// Skips ICE and DTLS: talks SRTP with fixed keys straight to `address` (the benchmark's
    /// floor relay, which measures what forwarding costs without any of them).
    public func connectWithoutHandshake(to address: SocketAddress, keys: SRTPKeyingMaterial) async throws {
        try await eventLoop.submit { [self] in
            try agent.useFixedRoute(to: address)
            srtp = try SRTPSession(keys)
            fixedKeys = keys
        }.get()
    }

    /// The agent selected a pair: the first time DTLS starts over it; later the path moved
    /// (the server follows our nomination) and DTLS/SRTP simply continue on the new one.
    private func pathSelected() {
        lastReceived = .now()
        guard let dtls, case .handshaking = dtls.state, !remoteReady else { return }
        remoteReady = true
        sendDTLS(dtls.start())
    }

    fileprivate func receive(_ bytes: UnsafeMutableRawBufferPointer) {
        guard bytes.count > 0 else { return }
        switch Demux.classify(first: bytes[0], second: bytes.count > 1 ? bytes[1] : nil) {
        case .dtls:
            guard let dtls else { return }
            sendDTLS(dtls.receive(UnsafeRawBufferPointer(bytes)))
            if case .connected(let keys) = dtls.state, srtp == nil {
                do {
                    srtp = try SRTPSession(keys)
                    watchLiveness()
                    connectedPromise?.succeed()
                } catch {
                    connectedPromise?.fail(error)
                }
            } else if case .failed(let error) = dtls.state {
                connectedPromise?.fail(error)
            } else if case .closed = dtls.state, srtp != nil {
                // The server ended this connection (close_notify): it is over, say so now.
                closedByServer()
            }
        case .rtp:
            guard let srtp, let length = try? srtp.unprotectRTP(bytes, length: bytes.count) else { return }
            lastReceived = .now()
            counters.packetsReceived += 1
            counters.bytesReceived += bytes.count
            onRTP?(UnsafeMutableRawBufferPointer(rebasing: bytes[0..<length]))
        case .rtcp:
            guard let srtp, let length = try? srtp.unprotectRTCP(bytes, length: bytes.count) else { return }
            lastReceived = .now()
            onRTCP?(UnsafeMutableRawBufferPointer(rebasing: bytes[0..<length]))
        default:
            return
        }
    }

    private func sendDTLS(_ datagrams: [[UInt8]]) {
        for datagram in datagrams { agent.write(agent.allocator.buffer(bytes: datagram)) }
        if let timeout = dtls?.nextTimeout {
            eventLoop.scheduleTask(in: TimeAmount(timeout)) { [weak self] in
                guard let self, let dtls = self.dtls, case .handshaking = dtls.state else { return }
                self.sendDTLS(dtls.handleTimeout())
            }
        }
    }

    /// The server answered a check with an error (401: it has no such connection any more).
    private func serverForgotUs() {
        if srtp == nil {
            connectedPromise?.fail(NegotiationError("connect: the server does not know this connection (STUN error response)"))
        } else {
            closedByServer()
        }
    }

    /// The connected session is over on the server's side: stop, and tell our owner.
    private func closedByServer() {
        srtp = nil
        livenessTask?.cancel()
        onClosedByServer?()
    }

    /// After connecting, checks twice a second that the server still answers (consent responses
    /// arrive every second even when no media flows).
    private func watchLiveness() {
        lastReceived = .now()
        livenessTask = eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(500), delay: .milliseconds(500)) { [weak self] task in
            guard let self, NIODeadline.now() - max(self.lastReceived, self.agent.lastHeard) > self.receiveTimeout else { return }
            task.cancel()
            self.onTimeout?()
        }
    }

    /// Protects and sends an RTCP compound packet (call on `eventLoop`); false before SRTP is ready.
    @discardableResult
    public func sendRTCP(_ packet: UnsafeRawBufferPointer) -> Bool {
        protectAndSend(packet, rtcp: true, flush: true)
    }

    /// Protects and sends an RTP packet (call on `eventLoop`); false before SRTP is ready.
    @discardableResult
    public func sendRTP(_ packet: UnsafeRawBufferPointer, flush: Bool = true) -> Bool {
        protectAndSend(packet, rtcp: false, flush: flush)
    }

    /// SRTP or SRTCP into one buffer, with room for the route's framing, then out on the route.
    private func protectAndSend(_ packet: UnsafeRawBufferPointer, rtcp: Bool, flush: Bool) -> Bool {
        let headroom = agent.framingHeadroom
        guard let srtp, let buffer = srtp.protect(packet, rtcp: rtcp, allocator: agent.allocator, headroom: headroom) else { return false }
        if !rtcp {
            counters.packetsSent += 1
            counters.bytesSent += buffer.readableBytes - headroom
        }
        return agent.write(buffer, headroom: headroom, flush: flush)
    }

    public func flush() { agent.flush() }

    /// Tells the server with a DTLS close_notify (so it frees the session at once), then closes the sockets.
    public func close() async {
        try? await eventLoop.submit { [self] in
            livenessTask?.cancel()
            onTimeout = nil
            agent.onData = nil
            if let dtls, srtp != nil {
                for datagram in dtls.shutdown() { agent.write(agent.allocator.buffer(bytes: datagram)) }
            }
            srtp = nil
            connectedPromise?.fail(NegotiationError("connect: the connection was closed"))
        }.get()
        await agent.close()
    }
}
