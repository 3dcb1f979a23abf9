import NIOCore
import StageWire

/// The last few verified Binding requests of one peer, by STUN transaction ID (RFC 8489 §5)
/// and the path each came on, so a check replayed from another address (a captured
/// USE-CANDIDATE request sent again by someone else) is recognised and cannot move the
/// peer's media there. The same ID on the same path is a retransmission and is answered again
/// (RFC 8489 §6.3.1.1 lets a server answer a retransmitted request anew).
///
/// A fixed ring: recording a check allocates nothing once the ring is full.
struct RecentTransactions {
    /// Checks remembered per peer: a client sends one per pair and retransmits within a few
    /// hundred milliseconds, so a handful covers what a replay could reuse while it matters.
    static let capacity = 8

    private struct Entry {
        var id: STUNTransactionID
        var remote: SocketAddress
        var transport: ICETransportProtocol
    }

    private var entries: [Entry] = []
    private var next = 0

    /// Whether `id` was verified before from another path than `path`.
    func isReplay(_ id: STUNTransactionID, on path: MediaPath) -> Bool {
        entries.contains { $0.id == id && ($0.remote != path.remote || $0.transport != path.transport) }
    }

    /// Remembers a verified check (the oldest is forgotten once the ring is full).
    mutating func record(_ id: STUNTransactionID, on path: MediaPath) {
        if entries.contains(where: { $0.id == id && $0.remote == path.remote && $0.transport == path.transport }) { return }
        let entry = Entry(id: id, remote: path.remote, transport: path.transport)
        if entries.count < Self.capacity {
            entries.append(entry)
        } else {
            entries[next] = entry
            next = (next + 1) % Self.capacity
        }
    }
}
