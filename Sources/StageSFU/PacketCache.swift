/// The last packets of a producer, by sequence number, to answer NACKs (RFC 4585 §6.2.1)
/// without asking the publisher. Fixed slots in one allocation: storing a packet copies its
/// bytes and allocates nothing.
final class PacketCache {
    static let slotSize = 1500
    let capacity: Int
    private let storage: UnsafeMutableRawBufferPointer
    private var lengths: [Int]
    private var sequences: [UInt16]
    private var ssrcs: [UInt32]

    init(capacity: Int = 512) {
        self.capacity = capacity
        storage = .allocate(byteCount: capacity * Self.slotSize, alignment: 8)
        lengths = Array(repeating: 0, count: capacity)
        sequences = Array(repeating: 0, count: capacity)
        ssrcs = Array(repeating: 0, count: capacity)
    }

    deinit { storage.deallocate() }

    func store(_ packet: UnsafeRawBufferPointer, ssrc: UInt32, sequence: UInt16) {
        guard packet.count <= Self.slotSize else { return }
        let slot = Int(sequence) % capacity
        UnsafeMutableRawBufferPointer(rebasing: storage[slot * Self.slotSize..<slot * Self.slotSize + packet.count]).copyMemory(from: packet)
        lengths[slot] = packet.count
        sequences[slot] = sequence
        ssrcs[slot] = ssrc
    }

    /// Calls `body` with the cached packet, if it is still there.
    func withPacket(ssrc: UInt32, sequence: UInt16, _ body: (UnsafeRawBufferPointer) -> Void) {
        let slot = Int(sequence) % capacity
        guard lengths[slot] > 0, sequences[slot] == sequence, ssrcs[slot] == ssrc else { return }
        body(UnsafeRawBufferPointer(rebasing: storage[slot * Self.slotSize..<slot * Self.slotSize + lengths[slot]]))
    }
}
