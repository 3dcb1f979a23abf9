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
    /// What each slot holds, beside its bytes in `storage`. Raw memory, like the bytes: a store
    /// on every incoming packet checks no array's uniqueness.
    private let entries: UnsafeMutableBufferPointer<Entry>

    private struct Entry {
        var length = 0
        var sequence: UInt16 = 0
        var ssrc: UInt32 = 0
        var arrival: PacketTime
    }

    init(capacity: Int = 512) {
        self.capacity = capacity
        storage = .allocate(byteCount: capacity * Self.slotSize, alignment: 8)
        entries = .allocate(capacity: capacity)
        entries.initialize(repeating: Entry(arrival: PacketTime(nanoseconds: 0)))
    }

    deinit {
        storage.deallocate()
        entries.deallocate()
    }

    func store(_ packet: UnsafeRawBufferPointer, ssrc: UInt32, sequence: UInt16, now: PacketTime) {
        guard packet.count <= Self.slotSize else { return }
        let slot = Int(sequence) % capacity
        UnsafeMutableRawBufferPointer(rebasing: storage[slot * Self.slotSize..<slot * Self.slotSize + packet.count]).copyMemory(from: packet)
        entries[slot] = Entry(length: packet.count, sequence: sequence, ssrc: ssrc, arrival: now)
    }

    /// Whether the packet numbered `sequence` of `ssrc` is held (of any age: the slot is reused
    /// long before the sequence number wraps).
    func contains(ssrc: UInt32, sequence: UInt16) -> Bool {
        let entry = entries[Int(sequence) % capacity]
        return entry.length > 0 && entry.sequence == sequence && entry.ssrc == ssrc
    }

    /// Calls `body` with the cached packet, if it is still there and young enough to resend.
    /// - Returns: whether it was.
    @discardableResult
    func withPacket(ssrc: UInt32, sequence: UInt16, now: PacketTime, _ body: (UnsafeRawBufferPointer) -> Void) -> Bool {
        let slot = Int(sequence) % capacity
        let entry = entries[slot]
        guard entry.length > 0, entry.sequence == sequence, entry.ssrc == ssrc, now - entry.arrival <= Self.maximumAge else { return false }
        body(UnsafeRawBufferPointer(rebasing: storage[slot * Self.slotSize..<slot * Self.slotSize + entry.length]))
        return true
    }
}
