/// The last packets of one incoming stream (one simulcast layer, or a plain track), by
/// sequence number, to answer NACKs (RFC 4585 §6.2.1) without asking the publisher. Fixed
/// slots in one allocation: storing a packet copies its bytes and allocates nothing.
///
/// Sized by time: a packet older than `maximumAge` is never resent (by then its frame is
/// played or given up on, and a late copy only wastes the subscriber's link); the slots hold
/// `maximumAge` at up to `capacity / maximumAge` packets per second (512 slots: 2 s at a
/// 2.5 Mbps layer's ~250 packets/s), and one stream per cache means layers never evict
/// each other.
final class PacketCache {
    static let slotSize = 1500
    /// How long a packet stays resendable.
    static let maximumAge: Duration = .seconds(1)
    let capacity: Int
    private let storage: UnsafeMutableRawBufferPointer
    private var lengths: [Int]
    private var sequences: [UInt16]
    private var ssrcs: [UInt32]
    private var arrivals: [ContinuousClock.Instant]

    init(capacity: Int = 512) {
        self.capacity = capacity
        storage = .allocate(byteCount: capacity * Self.slotSize, alignment: 8)
        lengths = Array(repeating: 0, count: capacity)
        sequences = Array(repeating: 0, count: capacity)
        ssrcs = Array(repeating: 0, count: capacity)
        arrivals = Array(repeating: .now, count: capacity)
    }

    deinit { storage.deallocate() }

    func store(_ packet: UnsafeRawBufferPointer, ssrc: UInt32, sequence: UInt16, now: ContinuousClock.Instant) {
        guard packet.count <= Self.slotSize else { return }
        let slot = Int(sequence) % capacity
        UnsafeMutableRawBufferPointer(rebasing: storage[slot * Self.slotSize..<slot * Self.slotSize + packet.count]).copyMemory(from: packet)
        lengths[slot] = packet.count
        sequences[slot] = sequence
        ssrcs[slot] = ssrc
        arrivals[slot] = now
    }

    /// Whether the packet numbered `sequence` of `ssrc` is held (of any age: the slot is reused
    /// long before the sequence number wraps).
    func contains(ssrc: UInt32, sequence: UInt16) -> Bool {
        let slot = Int(sequence) % capacity
        return lengths[slot] > 0 && sequences[slot] == sequence && ssrcs[slot] == ssrc
    }

    /// Calls `body` with the cached packet, if it is still there and young enough to resend.
    /// - Returns: whether it was.
    @discardableResult
    func withPacket(ssrc: UInt32, sequence: UInt16, now: ContinuousClock.Instant, _ body: (UnsafeRawBufferPointer) -> Void) -> Bool {
        let slot = Int(sequence) % capacity
        guard lengths[slot] > 0, sequences[slot] == sequence, ssrcs[slot] == ssrc, now - arrivals[slot] <= Self.maximumAge else { return false }
        body(UnsafeRawBufferPointer(rebasing: storage[slot * Self.slotSize..<slot * Self.slotSize + lengths[slot]]))
        return true
    }
}
