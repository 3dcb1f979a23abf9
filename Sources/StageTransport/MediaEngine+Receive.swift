import NIOCore
import StageWire

/// Inbound packets, by transport, then by kind (RFC 7983 §7): STUN to the ICE-lite responder,
/// DTLS and SRTP/SRTCP to the peer whose selected path they arrived on.
extension MediaEngine {
    /// A datagram from one of the UDP sockets, decrypted in place in the engine's `scratch`.
    func receive(_ envelope: AddressedEnvelope<ByteBuffer>, on socket: MediaUDPSocket) {
        packetsReceived &+= 1
        let path = MediaPath(local: .udp(socket), remote: envelope.remoteAddress)
        scratch.withMutableBytes(of: envelope.data) { receive($0, on: path) }
    }

    /// A datagram's bytes, which may be changed in place, by kind.
    private func receive(_ bytes: UnsafeMutableRawBufferPointer, on path: MediaPath) {
        guard bytes.count > 0 else { return MediaDropReason.unknownKind.count() }
        switch Demux.classify(first: bytes[0], second: bytes.count > 1 ? bytes[1] : nil) {
        case .stun:
            _ = receiveSTUN(UnsafeRawBufferPointer(bytes), on: path)
        case .dtls:
            guard let peer = peersByAddress[path.remote] else { return MediaDropReason.unknownAddress.count() }
            receiveDTLS(UnsafeRawBufferPointer(bytes), for: peer)
        case .rtp:
            guard let peer = peersByAddress[path.remote] else { return MediaDropReason.unknownAddress.count() }
            receiveSRTP(bytes, for: peer, rtcp: false)
        case .rtcp:
            guard let peer = peersByAddress[path.remote] else { return MediaDropReason.unknownAddress.count() }
            receiveSRTP(bytes, for: peer, rtcp: true)
        default:
            MediaDropReason.unknownKind.count()
        }
    }

    /// Bytes read from an ICE-TCP connection: every whole RFC 4571 frame is handled in place.
    ///
    /// Handling a frame can reach back into NIO (a write passes the connection's own pipeline),
    /// and NIO may deliver a read of this same connection from inside that call. Such a
    /// re-entered read only appends its bytes, which the outer read handles when its frames are
    /// done: the reader is never entered twice (Swift's exclusivity check would trap).
    func receive(_ bytes: inout ByteBuffer, on connection: ICETCPConnection) {
        guard !connection.isClosing else { return }
        guard !connection.isReading else {
            if connection.reenteredBytes == nil { connection.reenteredBytes = connection.channel.allocator.buffer(capacity: bytes.readableBytes) }
            connection.reenteredBytes?.writeBuffer(&bytes)
            return
        }
        connection.isReading = true
        defer { connection.isReading = false }
        var incoming = bytes
        while true {
            let outcome = connection.reader.read(&incoming) { frame in
                receiveFrame(frame, on: connection)
                return !connection.isClosing
            }
            if case .frameTooLarge = outcome { return closeTCP(connection, reason: .tcpFrameTooLarge) }
            guard !connection.isClosing, var more = connection.reenteredBytes, more.readableBytes > 0 else { return }
            connection.reenteredBytes = nil
            swap(&incoming, &more)
        }
    }

    /// One ICE-TCP frame. Until the connection has authenticated, only a Binding request that
    /// verifies is acceptable and anything else closes it. After, a frame that is none of
    /// STUN, DTLS, RTP or RTCP, an empty one, or STUN that does not parse is counted and
    /// dropped like a bad datagram: the connection may be the peer's selected path.
    private func receiveFrame(_ bytes: UnsafeMutableRawBufferPointer, on connection: ICETCPConnection) {
        packetsReceived &+= 1
        let kind = bytes.count > 0 ? Demux.classify(first: bytes[0], second: bytes.count > 1 ? bytes[1] : nil) : .unknown
        switch kind {
        case .stun:
            switch receiveSTUN(UnsafeRawBufferPointer(bytes), on: connection.path) {
            case .answered: break
            case .malformed: if !connection.isAuthenticated { closeTCP(connection, reason: .tcpGarbage) }
            case .notRequest, .refused: if !connection.isAuthenticated { closeTCP(connection, reason: .tcpUnauthenticated) }
            }
            return
        case .dtls, .rtp, .rtcp:
            break
        default:
            MediaDropReason.unknownKind.count()
            if !connection.isAuthenticated { closeTCP(connection, reason: .tcpGarbage) }
            return
        }
        guard connection.isAuthenticated else { return closeTCP(connection, reason: .tcpUnauthenticated) }
        // Media only on the peer's selected path, as on UDP.
        guard let peer = connection.peer, peer.selectedPath?.connection === connection else {
            return MediaDropReason.unknownAddress.count()
        }
        switch kind {
        case .dtls: receiveDTLS(UnsafeRawBufferPointer(bytes), for: peer)
        case .rtcp: receiveSRTP(bytes, for: peer, rtcp: true)
        default: receiveSRTP(bytes, for: peer, rtcp: false)
        }
    }

    private func receiveDTLS(_ bytes: UnsafeRawBufferPointer, for peer: MediaPeer) {
        peer.lastHeard = .now()
        let wasConnected = peer.srtp != nil
        sendDTLS(peer.dtls.receive(bytes), for: peer)
        switch peer.dtls.state {
        case .connected(let keys) where !wasConnected:
            do {
                peer.srtp = try SRTPSession(keys)
                peer.delegate?.peerDidConnect(peer)
            } catch {
                MediaDropReason.dtlsFailed.count()
                remove(peer, reason: "SRTP setup failed: \(error)")
            }
        case .closed:
            remove(peer, reason: "the peer closed DTLS (close_notify)")
        case .failed(let error):
            MediaDropReason.dtlsFailed.count()
            logger.notice("DTLS failed", metadata: ["peer": "\(peer.id)", "error": "\(error)"])
            remove(peer, reason: "\(error)")
        default:
            break
        }
    }

    private func receiveSRTP(_ bytes: UnsafeMutableRawBufferPointer, for peer: MediaPeer, rtcp: Bool) {
        guard let srtp = peer.srtp else { return MediaDropReason.notConnected.count() }
        peer.lastHeard = .now()
        do {
            let length = rtcp ? try srtp.unprotectRTCP(bytes, length: bytes.count) : try srtp.unprotectRTP(bytes, length: bytes.count)
            let plain = UnsafeMutableRawBufferPointer(rebasing: bytes[0..<length])
            if rtcp { peer.delegate?.peer(peer, didReceiveRTCP: plain) } else { peer.delegate?.peer(peer, didReceiveRTP: plain) }
        } catch {
            switch error {
            case .authentication: MediaDropReason.srtpAuthentication.count()
            case .replay: MediaDropReason.srtpReplay.count()
            case .other: MediaDropReason.srtpOther.count()
            }
        }
    }
}
