#if canImport(Glibc)
import Glibc
#endif
internal import CStageShims
import NIOCore

/// Outgoing datagrams of one UDP socket of the media port, protected straight into fixed slots
/// and sent with one `sendmmsg(2)` per batch: nothing is allocated per packet (as mediasoup
/// protects into one reusable buffer). The batch is sent when it is full (a long read burst
/// does not hold its first packets back until the burst ends), when the read burst ends, or at
/// once outside a burst.
///
/// The socket is the one NIO reads from (the engine created it and handed it over); a batch
/// the kernel cannot take now (`EAGAIN`) is copied into NIO's queue, which waits for the socket
/// to drain. A datagram the kernel refuses is counted (`udp_send_failed`) and skipped.
/// Touched only on the engine's event loop.
final class UDPSendBatch {
    /// Datagrams per `sendmmsg`.
    static let capacity = 32
    /// Bytes per slot: the longest packet read, plus what SRTCP protection may add.
    static let slotSize = MediaEngine.maximumPacketLength + SRTPSession.maxRTCPTrailer

    let descriptor: CInt
    private let storage: UnsafeMutableRawBufferPointer
    private let lengths: UnsafeMutablePointer<Int>
    /// The `mmsghdr`s, their iovecs and addresses (C-side: see `stage_mmsg_batch`).
    private let headers: OpaquePointer
    /// The destination of each slot, for the copy handed to NIO when the kernel would block.
    private var destinations: [SocketAddress?]
    /// Datagrams waiting in the slots.
    private(set) var count = 0
    /// The socket was closed: nothing more is sent through its descriptor.
    var isClosed = false

    init(descriptor: CInt) {
        self.descriptor = descriptor
        storage = .allocate(byteCount: Self.capacity * Self.slotSize, alignment: 16)
        lengths = .allocate(capacity: Self.capacity)
        guard let headers = stage_mmsg_batch_create(UInt32(Self.capacity)) else { fatalError("out of memory for a UDP send batch") }
        self.headers = headers
        destinations = Array(repeating: nil, count: Self.capacity)
    }

    deinit {
        storage.deallocate()
        lengths.deallocate()
        stage_mmsg_batch_destroy(headers)
    }

    var isFull: Bool { count == Self.capacity }

    /// Adds one datagram for `destination`: `fill` writes it into the slot it is given (the whole
    /// slot) and returns its length, 0 to add nothing. The caller sends the batch first when full.
    /// - Returns: whether a datagram was added.
    func add(to destination: SocketAddress, _ fill: (UnsafeMutableRawBufferPointer) -> Int) -> Bool {
        precondition(count < Self.capacity, "send the batch when it is full")
        let slot = UnsafeMutableRawBufferPointer(rebasing: storage[count * Self.slotSize..<(count + 1) * Self.slotSize])
        let length = fill(slot)
        guard length > 0 else { return false }
        let index = count
        destination.withSockAddr { address, size in
            stage_mmsg_batch_set(headers, UInt32(index), slot.baseAddress, length, address, socklen_t(size))
        }
        destinations[index] = destination
        lengths[index] = length
        count += 1
        return true
    }

    /// Sends every datagram in the batch. What the kernel would block on goes to `channel`'s
    /// queue (written, not flushed: the caller flushes it).
    /// - Returns: whether something was queued on `channel`.
    @discardableResult
    func send(queueingOn channel: any Channel) -> Bool {
        defer { count = 0 }
        var sent = 0
        while sent < count, !isClosed {
            let result = stage_mmsg_batch_send(headers, descriptor, UInt32(sent), UInt32(count - sent))
            if result > 0 {
                sent += Int(result)
                continue
            }
            switch errno {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                queue(from: sent, on: channel)
                return true
            default:
                // This datagram is refused (its destination unreachable, too long): the rest may go.
                MediaDropReason.udpSendFailed.count()
                sent += 1
            }
        }
        return false
    }

    /// Copies the datagrams from `first` on into NIO's queue for `channel`.
    private func queue(from first: Int, on channel: any Channel) {
        for index in first..<count {
            guard let destination = destinations[index] else { continue }
            let bytes = UnsafeRawBufferPointer(start: storage.baseAddress! + index * Self.slotSize, count: lengths[index])
            let buffer = channel.allocator.buffer(bytes: bytes)
            channel.write(AddressedEnvelope(remoteAddress: destination, data: buffer), promise: nil)
        }
    }
}
