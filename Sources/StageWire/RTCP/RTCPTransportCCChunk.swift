/// A packet status symbol of transport-cc feedback
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1.1). Symbol 11 is reserved.
public enum RTCPTransportCCStatus: UInt8, Hashable, Sendable {
    /// 00: not received (no receive delta).
    case notReceived = 0
    /// 01: received, with a 1-byte unsigned delta (0–63.75 ms).
    case receivedSmallDelta = 1
    /// 10: received, with a 2-byte signed delta (negative, or over 63.75 ms).
    case receivedLargeDelta = 2

    /// Bytes of receive delta this status carries.
    public var deltaSize: Int { Int(rawValue) }
}

/// One 16-bit packet status chunk (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1.3,
/// §3.1.4), kept as its raw bits so every chunk round-trips exactly:
///
/// ```
/// run length chunk:     |T=0| S (2) |        run length (13)       |
/// status vector chunk:  |T=1|S=0|  14 one-bit symbols              |
///                       |T=1|S=1|  7 two-bit symbols               |
/// ```
///
/// Symbols are read most-significant first.
public struct RTCPTransportCCChunk: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        case runLength
        case oneBitVector
        case twoBitVector
    }

    static let vectorFlag: UInt16 = 0x8000
    static let twoBitFlag: UInt16 = 0x4000
    /// Largest run a run length chunk holds (13 bits).
    public static let maxRunLength = 0x1FFF
    public static let oneBitCapacity = 14
    public static let twoBitCapacity = 7

    /// The chunk as it appears on the wire.
    public var rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public var kind: Kind {
        if rawValue & Self.vectorFlag == 0 { return .runLength }
        return rawValue & Self.twoBitFlag == 0 ? .oneBitVector : .twoBitVector
    }

    /// How many packets the chunk describes (a vector's trailing symbols past the status count
    /// are ignored by receivers).
    public var statusCount: Int {
        switch kind {
        case .runLength: Int(rawValue) & Self.maxRunLength
        case .oneBitVector: Self.oneBitCapacity
        case .twoBitVector: Self.twoBitCapacity
        }
    }

    /// The raw symbol (0–3) of the packet at `index` within the chunk.
    public func symbol(at index: Int) -> UInt8 {
        switch kind {
        case .runLength: UInt8(truncatingIfNeeded: rawValue >> 13) & 0x03
        case .oneBitVector: UInt8(truncatingIfNeeded: rawValue >> (13 - index)) & 0x01
        case .twoBitVector: UInt8(truncatingIfNeeded: rawValue >> (12 - 2 * index)) & 0x03
        }
    }

    /// The status of the packet at `index`, or `nil` for the reserved symbol 11.
    public func status(at index: Int) -> RTCPTransportCCStatus? {
        RTCPTransportCCStatus(rawValue: symbol(at: index))
    }

    /// A run of `length` (clamped to 0…8191) packets with the same status.
    public static func runLength(_ status: RTCPTransportCCStatus, length: Int) -> Self {
        let run = UInt16(min(max(length, 0), maxRunLength))
        return Self(rawValue: UInt16(status.rawValue) << 13 | run)
    }

    /// A one-bit status vector of up to 14 statuses (missing ones are "not received").
    /// Returns `nil` when a status is `.receivedLargeDelta` or there are more than 14.
    public static func oneBitVector(_ statuses: some Collection<RTCPTransportCCStatus>) -> Self? {
        guard statuses.count <= oneBitCapacity else { return nil }
        var raw = vectorFlag
        for (index, status) in statuses.enumerated() {
            guard status != .receivedLargeDelta else { return nil }
            raw |= UInt16(status.rawValue) << (13 - index)
        }
        return Self(rawValue: raw)
    }

    /// A two-bit status vector of up to 7 statuses (missing ones are "not received").
    /// Returns `nil` with more than 7.
    public static func twoBitVector(_ statuses: some Collection<RTCPTransportCCStatus>) -> Self? {
        guard statuses.count <= twoBitCapacity else { return nil }
        var raw = vectorFlag | twoBitFlag
        for (index, status) in statuses.enumerated() {
            raw |= UInt16(status.rawValue) << (12 - 2 * index)
        }
        return Self(rawValue: raw)
    }
}
