public import StageWire

/// The send side of transport-wide congestion control for one subscriber
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01): numbers every packet sent on its
/// transport (§2), remembers when each left and its size, and matches the subscriber's feedback
/// (§3.1) to them, for the delay-based estimate (`DelayTrendline`) and what arrived (`RecentRate`).
///
/// A ring of `capacity` slots by sequence number: recording allocates nothing, and feedback
/// about a number whose slot was reused since (sent `capacity` packets ago or more) is ignored.
/// Shared by the consumers of one subscriber, on its event loop.
public final class TransportSendHistory {
    /// 8,192 packets: four seconds at 2,000 packets a second, far more than feedback lags.
    public static let capacity = 1 << 13
    /// Bytes on the wire per packet beyond the whole RTP packet it keeps the size of: SRTP tag,
    /// UDP/IPv4 headers (about; what a rate of the link counts).
    public static let overheadPerPacket = 10 + 28

    /// What the feedback says of one packet that is still remembered.
    public struct PacketFeedback: Hashable, Sendable {
        public var sequence: UInt16
        /// When it left, in microseconds of the clock `sent(_:size:at:)` was given.
        public var sentAt: Int64
        public var size: Int
        /// When it arrived, in microseconds of the receiver's clock; nil: reported not received.
        public var arrivedAt: Int64?

        public init(sequence: UInt16, sentAt: Int64, size: Int, arrivedAt: Int64?) {
            self.sequence = sequence
            self.sentAt = sentAt
            self.size = size
            self.arrivedAt = arrivedAt
        }
    }

    /// 16 bytes: written for every packet sent, four to a cache line.
    private struct Slot {
        var sentAt: Int64 = 0
        var sequence: UInt16 = 0
        /// Bytes of the RTP packet (at most 65,535: more than any datagram a path carries).
        var size: UInt16 = 0
        var used = false
    }

    /// Raw memory rather than an array: `sent` runs for every packet the subscriber is sent,
    /// and an array held by a class checks its uniqueness on each write.
    private let slots: UnsafeMutableBufferPointer<Slot>
    private var next: UInt16

    public init(firstSequence: UInt16 = 0) {
        next = firstSequence
        slots = .allocate(capacity: Self.capacity)
        slots.initialize(repeating: Slot())
    }

    deinit { slots.deallocate() }

    /// The number the next packet will take.
    public var nextSequence: UInt16 { next }

    /// The number for the next packet; each call takes a new one (wrapping at 2¹⁶).
    public func takeSequence() -> UInt16 {
        defer { next &+= 1 }
        return next
    }

    /// Remembers that the packet numbered `sequence` left at `microseconds` with `size` bytes.
    public func sent(_ sequence: UInt16, size: Int, at microseconds: Int64) {
        slots[Int(sequence) & (Self.capacity - 1)] = Slot(sentAt: microseconds, sequence: sequence, size: UInt16(clamping: size),
                                                          used: true)
    }

    /// Every packet `feedback` describes that is remembered, in its order; a number reported
    /// twice (in two feedback packets) is returned each time.
    public func match(_ feedback: RTCPTransportCCFeedback) -> [PacketFeedback] {
        var matched: [PacketFeedback] = []
        for result in feedback.packetResults() {
            let slot = slots[Int(result.sequenceNumber) & (Self.capacity - 1)]
            guard slot.used, slot.sequence == result.sequenceNumber else { continue }
            matched.append(PacketFeedback(sequence: result.sequenceNumber, sentAt: slot.sentAt, size: Int(slot.size),
                                          arrivedAt: result.arrivalTime))
        }
        return matched
    }
}
