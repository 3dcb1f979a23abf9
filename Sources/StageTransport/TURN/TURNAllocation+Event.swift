public import StageWire

extension TURNAllocation {
    /// What the allocation asks of its caller or tells it, in the order they happened.
    public enum Event: Hashable, Sendable {
        /// Bytes to write to the TURN server: one datagram over UDP, or bytes for the stream
        /// over TCP (a whole STUN message; no extra framing, RFC 8656 §12.5).
        case send([UInt8])
        /// The Allocate succeeded (RFC 8656 §7.3): the relayed transport address to offer as
        /// a `relay` candidate, the server-reflexive one (XOR-MAPPED-ADDRESS) when the server
        /// sent it, and how long the allocation lives unless refreshed.
        case allocated(relayed: STUNAddress, mapped: STUNAddress?, lifetime: Duration)
        /// A Refresh succeeded (RFC 8656 §8.3) with this new lifetime.
        case refreshed(lifetime: Duration)
        /// The server installed a permission for this peer IP (RFC 8656 §10.3); reported once.
        case permissionCreated(IPAddress)
        /// The server bound the channel to the peer (RFC 8656 §12.3); reported once.
        case channelBound(peer: STUNAddress, channel: UInt16)
        /// Application data from a peer, from a Data indication (§11.4) or ChannelData (§12.6).
        case data(from: STUNAddress, payload: [UInt8])
        /// A CreatePermission failed; data to and from the IP will be dropped by the server.
        case permissionFailed(IPAddress, TURNAllocationError)
        /// A ChannelBind failed; ``TURNAllocation/wrap(_:to:)`` keeps using Send indications.
        case channelBindFailed(peer: STUNAddress, TURNAllocationError)
        /// The allocation failed or was lost; nothing more will be sent.
        case failed(TURNAllocationError)
        /// ``TURNAllocation/close(now:)`` finished: the server deleted the allocation (or it
        /// never existed).
        case closed
    }

    /// Why incoming bytes were dropped (counted in ``TURNAllocation/drops``).
    public enum DropReason: String, Hashable, Sendable, CaseIterable {
        /// Neither STUN nor ChannelData, or a ChannelData message that does not parse.
        case malformed
        /// A STUN message that fails to parse (RFC 8489 §5, §14).
        case malformedSTUN
        /// A response to no outstanding transaction (late, duplicate or forged).
        case unknownTransaction
        /// A success response whose MESSAGE-INTEGRITY is missing or wrong (RFC 8489 §9.2.5).
        case integrityMismatch
        /// ChannelData on a channel that is not bound (RFC 8656 §12.6).
        case unboundChannel
        /// A Data indication from an IP without a permission (RFC 8656 §11.4).
        case noPermission
        /// A STUN message this client does not handle (requests, other indications).
        case unexpectedMessage
    }
}
