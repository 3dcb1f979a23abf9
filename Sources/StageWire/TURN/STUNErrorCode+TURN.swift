/// The error codes TURN adds (RFC 8656 §6, §17), beside RFC 8489 §14.8's in ``STUNErrorCode``.
extension STUNErrorCode {
    /// 403 Forbidden (RFC 8656 §6): the request was valid but cannot be performed (e.g. a
    /// permission to a peer the server's policy refuses).
    public static let forbidden = 403
    /// 437 Allocation Mismatch (§6): an Allocate on a 5-tuple that has one, or a request on a
    /// 5-tuple that has none.
    public static let allocationMismatch = 437
    /// 440 Address Family not Supported (§6).
    public static let addressFamilyNotSupported = 440
    /// 441 Wrong Credentials (§6): the credentials differ from those that made the allocation.
    public static let wrongCredentials = 441
    /// 442 Unsupported Transport Protocol (§6).
    public static let unsupportedTransportProtocol = 442
    /// 443 Peer Address Family Mismatch (§6).
    public static let peerAddressFamilyMismatch = 443
    /// 486 Allocation Quota Reached (§6).
    public static let allocationQuotaReached = 486
    /// 508 Insufficient Capacity (§6).
    public static let insufficientCapacity = 508
}
