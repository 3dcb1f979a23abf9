public import NIOCore
import StageWire

/// What the owner of a pipe (a router) hears from it. Every call happens on the pipe's event loop.
public protocol PipeTransportDelegate: AnyObject {
    /// A decrypted RTP packet from the connected remote, its header parsed (version 2, CSRCs,
    /// extension and padding inside the packet: RFC 3550 §5.1).
    func pipe(_ pipe: PipeTransport, didReceiveRTP packet: UnsafeMutableRawBufferPointer)
    /// A decrypted RTCP compound packet (RFC 3550 §6) from the connected remote.
    func pipe(_ pipe: PipeTransport, didReceiveRTCP packet: UnsafeMutableRawBufferPointer)
}

/// One end of a pipe between two media routers (mediasoup's PipeTransport): RTP and RTCP on one
/// UDP socket (RFC 5761), protected as SRTP and SRTCP (RFC 3711; AES-GCM, RFC 7714) with keys
/// its two ends were handed over a channel that authenticates (`SRTPKeyingMaterial.pipePair`).
/// No ICE and no DTLS.
///
/// Before `connect`, every datagram is refused. After it, a datagram is handed to the delegate
/// only when its source is exactly the remote address (family, address and port), it
/// authenticates with the receive key, and it is no replay (libsrtp's window, RFC 3711 §3.3.2).
/// A refused datagram is counted by reason (`refused`, and `proscenium_media_dropped_total`),
/// never answered.
///
/// Touched only on its event loop, like `MediaPeer`. Its socket holds it until `close()`.
public final class PipeTransport: @unchecked Sendable {
    /// The longest datagram read whole: the longest packet the media port reads
    /// (`MediaEngine.maximumPacketLength`) plus what SRTCP adds. A longer one is cut, and fails
    /// authentication.
    public static let maximumDatagramLength = MediaEngine.maximumPacketLength + SRTPSession.maxRTCPTrailer

    public enum Failure: Error, Equatable {
        /// A key and salt of another length than the profile's.
        case keyLength(expected: Int)
        /// The pipe was closed.
        case closed
    }

    public let eventLoop: any EventLoop
    /// The address the UDP socket is bound to, for the other end's `connect`.
    public let localAddress: SocketAddress
    public weak var delegate: (any PipeTransportDelegate)?
    /// Where packets go and the only source accepted; nil until `connect`.
    public private(set) var remoteAddress: SocketAddress?
    public private(set) var isClosed = false

    /// Packets protected and handed to the socket.
    public private(set) var packetsSent = 0
    /// Packets handed to the delegate. Every datagram read is either this or `refused`.
    public private(set) var packetsReceived = 0
    /// Datagrams refused, by reason (the `pipe_` reasons).
    public private(set) var refused: [MediaDropReason: Int] = [:]
    /// Packets not sent, by reason: `send_not_ready` (not connected, closed), `pipe_malformed`
    /// (not of its kind, too long), `srtp_protect_failed`; and `udp_send_failed` for errors the
    /// socket reports (a datagram the kernel refuses is seen only by NIO's write promise, which
    /// is not asked for).
    public private(set) var notSent: [MediaDropReason: Int] = [:]

    let channel: any Channel
    private var srtp: SRTPSession?
    /// Where a datagram is decrypted in place: NIO's buffer is shared, so changing it would copy it.
    private let scratch = DatagramScratch(capacity: maximumDatagramLength)

    init(channel: any Channel, localAddress: SocketAddress) {
        self.channel = channel
        self.localAddress = localAddress
        eventLoop = channel.eventLoop
    }


    public var isConnected: Bool { srtp != nil }

    /// From now on, accepts datagrams from `remote` alone, unprotected with `keys.remote`, and
    /// sends to it protected with `keys.local`. Call on the event loop. A later call replaces
    /// both (a new key starts a new replay window).
    /// - Throws: `Failure.keyLength` for keys of the wrong length, `Failure.closed`, or
    ///   `SRTPSession.Failure` when libsrtp refuses them.
    public func connect(remote: SocketAddress, keys: SRTPKeyingMaterial) throws {
        eventLoop.preconditionInEventLoop()
        guard !isClosed else { throw Failure.closed }
        let length = keys.profile.keyLength + keys.profile.saltLength
        guard keys.local.count == length, keys.remote.count == length else { throw Failure.keyLength(expected: length) }
        srtp = try SRTPSession(keys)
        remoteAddress = remote
    }

    /// Protects an RTP packet as SRTP and sends it to the remote. Call on the event loop.
    /// - Returns: false, counted in `notSent`, when not connected, the packet is no RTP
    ///   (RFC 5761 §4) or too long, or protection failed.
    @discardableResult
    public func sendRTP(_ packet: UnsafeRawBufferPointer) -> Bool { send(packet, as: .rtp) }

    /// Protects an RTCP compound packet as SRTCP and sends it to the remote; see `sendRTP(_:)`.
    @discardableResult
    public func sendRTCP(_ packet: UnsafeRawBufferPointer) -> Bool { send(packet, as: .rtcp) }

    private func send(_ packet: UnsafeRawBufferPointer, as kind: DatagramKind) -> Bool {
        eventLoop.assertInEventLoop()
        guard let srtp, let remoteAddress, !isClosed else { return countNotSent(.sendNotReady) }
        let shortest = kind == .rtp ? RTPHeader.fixedSize : PipeDatagram.rtcpHeaderLength
        guard Demux.classify(packet) == kind, packet.count >= shortest, packet.count <= MediaEngine.maximumPacketLength else {
            return countNotSent(.pipeMalformed)
        }
        guard let buffer = srtp.protect(packet, rtcp: kind == .rtcp, allocator: channel.allocator) else {
            return countNotSent(.srtpProtectFailed)
        }
        channel.writeAndFlush(AddressedEnvelope(remoteAddress: remoteAddress, data: buffer), promise: nil)
        packetsSent &+= 1
        return true
    }

    /// Closes the socket; nothing is sent or accepted after it.
    public func close() async {
        try? await eventLoop.submit { [self] in
            isClosed = true
            srtp = nil
        }.get()
        try? await channel.close()
    }

    // MARK: Receiving

    /// A datagram read from the socket: from the remote, opened in the scratch buffer.
    func receive(_ envelope: AddressedEnvelope<ByteBuffer>) {
        guard let srtp, !isClosed, envelope.remoteAddress == remoteAddress else { return countRefused(.pipeUnknownSource) }
        scratch.withMutableBytes(of: envelope.data) { deliver($0, with: srtp) }
    }

    private func deliver(_ datagram: UnsafeMutableRawBufferPointer, with srtp: SRTPSession) {
        switch PipeDatagram.open(datagram, with: srtp) {
        case .rtp(let length):
            packetsReceived &+= 1
            delegate?.pipe(self, didReceiveRTP: UnsafeMutableRawBufferPointer(rebasing: datagram[..<length]))
        case .rtcp(let length):
            packetsReceived &+= 1
            delegate?.pipe(self, didReceiveRTCP: UnsafeMutableRawBufferPointer(rebasing: datagram[..<length]))
        case .refused(let reason):
            countRefused(reason)
        }
    }

    func countRefused(_ reason: MediaDropReason) {
        reason.count()
        refused[reason, default: 0] += 1
    }

    @discardableResult
    func countNotSent(_ reason: MediaDropReason) -> Bool {
        reason.count()
        notSent[reason, default: 0] += 1
        return false
    }
}
