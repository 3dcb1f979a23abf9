public import NIOCore
import StageWire

/// What the owner of a peer connection (the SFU) hears from it. Every call happens on the
/// media engine's event loop.
public protocol MediaPeerDelegate: AnyObject {
    /// DTLS finished and SRTP keys are in place: media can flow both ways.
    func peerDidConnect(_ peer: MediaPeer)
    /// A decrypted RTP packet (its header already checked to be RTP version 2).
    func peer(_ peer: MediaPeer, didReceiveRTP packet: UnsafeMutableRawBufferPointer)
    /// A decrypted RTCP compound packet.
    func peer(_ peer: MediaPeer, didReceiveRTCP packet: UnsafeMutableRawBufferPointer)
    /// The peer is gone: consent expired, DTLS failed, or it was closed.
    func peerDidClose(_ peer: MediaPeer, reason: String)
}

/// One WebRTC peer connection on the shared media port: ICE-lite credentials, the selected
/// candidate pair (a UDP socket and remote address, or an ICE-TCP connection), DTLS and SRTP.
/// Owned by `MediaEngine`; touched only on its event loop.
public final class MediaPeer: @unchecked Sendable {
    public let id: String
    public let credentials: ICECredentials
    public weak var delegate: (any MediaPeerDelegate)?
    let dtls: DTLSEndpoint
    var srtp: SRTPSession?
    /// The selected candidate pair: where answers, DTLS and SRTP go. Nil until a check succeeds,
    /// and again when the ICE-TCP connection it used closes (the peer is then silent until it
    /// nominates another pair, or its consent expires).
    public internal(set) var selectedPath: MediaPath?
    /// The remote address of the selected candidate pair.
    public var remoteAddress: SocketAddress? { selectedPath?.remote }
    var nominated = false
    /// ICE-TCP connections authenticated for this peer, oldest first; closed with it.
    var tcpConnections: [ICETCPConnection] = []
    /// Its last verified checks, to tell a replay from another address.
    var recentTransactions = RecentTransactions()
    var lastHeard: NIODeadline
    var retransmitTask: Scheduled<Void>?
    weak var engine: MediaEngine?
    public internal(set) var isClosed = false

    /// - Parameters:
    ///   - dtlsRole: `.server` when the remote offered `actpass` and we answered `passive`.
    ///   - remoteFingerprint: the `sha-256` fingerprint from the remote SDP.
    public init(id: String, engine: MediaEngine, dtlsRole: DTLSEndpoint.Role, remoteFingerprint: [UInt8]) throws {
        self.id = id
        credentials = .random()
        dtls = try DTLSEndpoint(role: dtlsRole, context: engine.dtlsContext, remoteFingerprint: remoteFingerprint)
        self.engine = engine
        lastHeard = .now()
    }

    public var isConnected: Bool { srtp != nil }
    /// The media engine's event loop, for timers of the peer's owner.
    public var eventLoop: (any EventLoop)? { engine?.eventLoop }

    /// Protects and sends an RTP packet to the peer. Call on the engine's event loop.
    /// - Returns: false when the peer is not connected yet or protection failed.
    /// - Parameter rewrite: changes the copy's header before protection (the SFU's munger).
    @discardableResult
    public func sendRTP(_ packet: UnsafeRawBufferPointer, rewrite: (UnsafeMutableRawBufferPointer) -> Void = { _ in }) -> Bool {
        send(maximumLength: packet.count, rtcp: false) { plain in
            UnsafeMutableRawBufferPointer(rebasing: plain[..<packet.count]).copyMemory(from: packet)
            rewrite(UnsafeMutableRawBufferPointer(rebasing: plain[..<packet.count]))
            return packet.count
        }
    }

    /// Protects and sends an RTP packet that `write` builds in place (a forwarded packet given
    /// another header extension block): `write` fills at most `maximumLength` bytes and returns
    /// how many. Call on the engine's event loop.
    @discardableResult
    public func sendRTP(maximumLength: Int, write: (UnsafeMutableRawBufferPointer) -> Int) -> Bool {
        send(maximumLength: maximumLength, rtcp: false, write)
    }

    @discardableResult
    public func sendRTCP(_ packet: UnsafeRawBufferPointer) -> Bool {
        send(maximumLength: packet.count, rtcp: true) { plain in
            UnsafeMutableRawBufferPointer(rebasing: plain[..<packet.count]).copyMemory(from: packet)
            return packet.count
        }
    }

    /// Every packet not sent is counted: `send_not_ready`, `srtp_protect_failed`, or the
    /// engine's reason for a path that cannot take it. Inlined into each caller, so the
    /// forwarding path's closures collapse into one (this runs per packet per subscriber).
    @inline(__always)
    private func send(maximumLength: Int, rtcp: Bool, _ write: (UnsafeMutableRawBufferPointer) -> Int) -> Bool {
        guard let srtp, let path = selectedPath, let engine, !isClosed else {
            MediaDropReason.sendNotReady.count()
            return false
        }
        if case .udp(let socket) = path.local, let batch = socket.batch, !batch.isClosed, maximumLength <= MediaEngine.maximumPacketLength {
            // Protected straight into the socket's batch: nothing allocated per packet.
            let sent = engine.send(on: socket, batch: batch, to: path.remote) { slot in
                Self.writeAndProtect(into: slot, maximumLength: maximumLength, rtcp: rtcp, srtp: srtp, write)
            }
            if sent { engine.packetsSent &+= 1 }
            return sent
        }
        guard var buffer = srtp.protect(maximumLength: maximumLength, rtcp: rtcp, allocator: engine.allocator, headroom: path.framingHeadroom,
                                        { out in Self.writeAndProtect(into: out, maximumLength: maximumLength, rtcp: rtcp, srtp: srtp, write) })
        else { return false }
        let sent = engine.write(&buffer, on: path)
        if sent { engine.packetsSent &+= 1 }
        return sent
    }

    /// Lets `write` fill the start of `slot` and protects it there.
    /// - Returns: the protected length; 0 when nothing was written or protection failed (counted).
    @inline(__always)
    private static func writeAndProtect(into slot: UnsafeMutableRawBufferPointer, maximumLength: Int, rtcp: Bool, srtp: SRTPSession,
                                        _ write: (UnsafeMutableRawBufferPointer) -> Int) -> Int {
        let length = write(UnsafeMutableRawBufferPointer(rebasing: slot[..<maximumLength]))
        guard length > 0 else { return 0 }
        do {
            return try rtcp ? srtp.protectRTCP(slot, length: length) : srtp.protectRTP(slot, length: length)
        } catch {
            MediaDropReason.srtpProtectFailed.count()
            return 0
        }
    }

    /// Ends the peer connection (its owner hears `peerDidClose`).
    public func close(reason: String = "closed") {
        engine?.remove(self, reason: reason)
    }
}
