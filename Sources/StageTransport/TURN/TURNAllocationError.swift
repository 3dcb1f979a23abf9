public import StageWire

/// Why a TURN allocation, permission or channel binding failed (RFC 8656), with the server's
/// error code and reason phrase when it sent one.
public enum TURNAllocationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The server answered with an error response (RFC 8489 §14.8 code and reason phrase), e.g.
    /// 437 Allocation Mismatch, 486 Allocation Quota Reached, 403 Forbidden.
    case serverError(method: STUNMethod, STUNErrorCode)
    /// 401 to a request that already carried the long-term credentials: wrong username or
    /// password (RFC 8489 §9.2.5).
    case unauthorized(STUNErrorCode)
    /// A 401 or 438 without the REALM and NONCE needed to retry (RFC 8489 §9.2.5).
    case missingRealmOrNonce(method: STUNMethod, STUNErrorCode)
    /// More consecutive 438 Stale Nonce answers than ``TURNAllocation/Configuration/maximumStaleNonceRetries``.
    case tooManyStaleNonces(method: STUNMethod)
    /// No response after the last retransmission (RFC 8489 §6.2.1: Rc sends then Rm × RTO) or,
    /// over TCP, after Ti = 39.5 s (§6.2.2).
    case timedOut(method: STUNMethod)
    /// A success response whose attributes do not parse, or an Allocate success without
    /// XOR-RELAYED-ADDRESS (RFC 8656 §7.3).
    case malformedResponse(method: STUNMethod, STUNError?)
    /// The TCP stream from the server lost its framing (RFC 8656 §12.5).
    case stream(FramingError)
    /// The allocation's lifetime ended before a Refresh succeeded (RFC 8656 §8).
    case allocationExpired
    /// The operation needs an allocation (or one being made) and there is none.
    case notAllocated
    /// The payload does not fit a ChannelData message or a Send indication (65,535 bytes).
    case payloadTooLong(Int)
    /// A request could not be built, e.g. a username or realm over 763 bytes (RFC 8489 §14.3).
    case cannotBuildRequest(STUNError)

    public var description: String {
        switch self {
        case .serverError(let method, let code): "TURN \(method) failed: \(code.code) \(code.reason)"
        case .unauthorized(let code): "TURN credentials rejected: \(code.code) \(code.reason)"
        case .missingRealmOrNonce(let method, let code):
            "TURN \(method) got \(code.code) \(code.reason) without REALM and NONCE (RFC 8489 §9.2.5)"
        case .tooManyStaleNonces(let method): "TURN \(method): too many 438 Stale Nonce answers"
        case .timedOut(let method): "TURN \(method) timed out (RFC 8489 §6.2)"
        case .malformedResponse(let method, let error):
            "TURN \(method) response is malformed" + (error.map { ": \($0)" } ?? "")
        case .stream(let error): "TURN TCP stream: \(error)"
        case .allocationExpired: "TURN allocation expired before a Refresh succeeded (RFC 8656 §8)"
        case .notAllocated: "no TURN allocation"
        case .payloadTooLong(let length): "payload of \(length) bytes does not fit a TURN message"
        case .cannotBuildRequest(let error): "TURN request cannot be built: \(error)"
        }
    }
}
