import NIOCore
import StageWire

/// The ICE-lite responder (RFC 8445 §2.5, §7.3) and the choice of each peer's selected path,
/// the same for UDP and ICE-TCP (RFC 6544 §7.2: checks on a TCP connection are answered on it).
///
/// A remote UDP address is the selected path of at most one live peer (DTLS and SRTP are
/// demultiplexed by it), and a verified request seen again from another path (a replay of its
/// transaction ID, see `RecentTransactions`) neither moves a path nor authenticates a connection.
extension MediaEngine {
    /// What became of a STUN packet.
    enum CheckOutcome {
        /// A Binding request that verified: answered, and the path possibly selected.
        case answered(MediaPeer)
        /// Not a STUN message we can read.
        case malformed
        /// A STUN message other than a Binding request (an indication, a response).
        case notRequest
        /// A Binding request with an unknown USERNAME or a MESSAGE-INTEGRITY that does not verify,
        /// one for another peer than the ICE-TCP connection it came on belongs to, a replay from
        /// another path, or one that would move the peer onto another live peer's UDP address.
        /// Only an unknown USERNAME is answered (401).
        case refused
    }

    /// Answers Binding requests whose USERNAME starts with a local ufrag and whose
    /// MESSAGE-INTEGRITY verifies with that peer's password.
    func receiveSTUN(_ bytes: UnsafeRawBufferPointer, on path: MediaPath) -> CheckOutcome {
        let message: STUNMessage
        do {
            message = try STUNMessage(parsing: bytes)
        } catch .fingerprintMismatch {
            MediaDropReason.stunBadFingerprint.count()
            return .malformed
        } catch {
            MediaDropReason.malformedSTUN.count()
            return .malformed
        }
        guard message.type == .bindingRequest else {
            MediaDropReason.stunNotRequest.count()
            return .notRequest
        }
        guard let username = try? message.username, let localUfrag = username.split(separator: ":").first,
              let peer = peersByUfrag[String(localUfrag)] else {
            // RFC 8489 §9.1.3: 401 for a USERNAME we do not know, so a client whose connection
            // ended here (closed, expired, server restarted) learns it at once. Never a reply
            // larger than the request: the source of an unauthenticated datagram may be spoofed,
            // and we must not amplify towards it. A real check (USERNAME, MESSAGE-INTEGRITY,
            // FINGERPRINT) is always larger than the 401.
            if let reply = try? STUNMessageBuilder.bindingError(transactionID: message.transactionID,
                                                                 error: STUNErrorCode(code: STUNErrorCode.unauthorized, reason: "")) {
                if reply.count <= bytes.count { send(reply, on: path) }
            }
            MediaDropReason.stunUnknownUsername.count()
            return .refused
        }
        guard message.verifyIntegrity(key: STUNMessage.shortTermKey(password: peer.credentials.password), hmacSHA1: Self.hmacSHA1) else {
            MediaDropReason.stunBadIntegrity.count()
            return .refused
        }
        guard let stunSource = STUNAddress(path.remote) else {
            MediaDropReason.noRemoteAddress.count()
            return .refused
        }
        // A request verified before on another path is a replay by someone else (a retransmission
        // comes on the same path): it must not authenticate a connection or move the media.
        guard !peer.recentTransactions.isReplay(message.transactionID, on: path) else {
            MediaDropReason.stunReplayedTransaction.count()
            return .refused
        }
        // A first successful check selects the pair so DTLS can start; USE-CANDIDATE (regular or
        // aggressive nomination) fixes it, and a later nomination of another pair (another
        // address, the other family, UDP ↔ TCP) moves it, and media with it.
        let selects: Bool
        if let selected = peer.selectedPath {
            selects = message.useCandidate && (!selected.isSame(as: path) || !peer.nominated)
        } else {
            selects = true
        }
        // One peer per remote UDP address: DTLS and SRTP are demultiplexed by it.
        if selects, case .udp = path.local, let owner = peersByAddress[path.remote], owner !== peer, !owner.isClosed {
            MediaDropReason.stunAddressTaken.count()
            return .refused
        }
        if let connection = path.connection {
            guard authenticate(connection, as: peer) else { return .refused }
            connection.lastUseful = .now()
        }
        peer.lastHeard = .now()
        peer.recentTransactions.record(message.transactionID, on: path)
        send(STUNMessageBuilder.bindingSuccess(transactionID: message.transactionID, source: stunSource,
                                               localPassword: peer.credentials.password, hmacSHA1: Self.hmacSHA1), on: path)
        if selects { select(path, for: peer, nominated: message.useCandidate) }
        return .answered(peer)
    }

    /// Makes `path` the peer's selected pair. The caller has checked that a UDP path's remote
    /// address belongs to no other live peer.
    private func select(_ path: MediaPath, for peer: MediaPeer, nominated: Bool) {
        if let old = peer.selectedPath, case .udp = old.local, peersByAddress[old.remote] === peer {
            peersByAddress[old.remote] = nil
        }
        if let old = peer.selectedPath, !old.isSame(as: path) {
            // A connection left behind is closed once it has been of no use for a while.
            old.connection?.lastUseful = .now()
            logger.debug("selected path moved", metadata: ["peer": "\(peer.id)", "from": "\(old)", "to": "\(path)"])
        }
        peer.selectedPath = path
        peer.nominated = peer.nominated || nominated
        if case .udp = path.local { peersByAddress[path.remote] = peer }
        if peer.dtls.role == .client, case .handshaking = peer.dtls.state {
            sendDTLS(peer.dtls.start(), for: peer)
        }
    }
}
