import NIOCore

/// Read bursts: the writes that reading causes (answers, DTLS, forwarded media to every
/// subscriber) are flushed once per burst instead of once per packet; a UDP socket's
/// `UDPSendBatch` also goes out early, whenever it fills during a long burst.
///
/// Each channel handler opens at most one burst at a time (``ReadBurst``) and closes it on
/// `channelReadComplete` or `channelInactive`. Bursts can nest (a handler's read may run while
/// another's is open, when NIO delivers events from inside a call into it), so the engine keeps
/// a depth and flushes only when the outermost burst ends: nothing is ever flushed from inside
/// the handling of a packet, where a flush could fail, close a channel and call back in.
extension MediaEngine {
    /// One handler's open burst, so it begins and ends the engine's burst exactly once.
    ///
    /// A class, not a struct: ending the outermost burst flushes, a flush can close the very
    /// channel whose handler is ending its burst, and that channel's `channelInactive` ends the
    /// burst again from inside the first call. On a struct that second call is a nested
    /// mutating access to the handler's property while the first is still running, which Swift
    /// stops with "Fatal access conflict detected" (the soak's crash after 20 minutes, with
    /// ICE-TCP clients vanishing); here `isOpen` is already false and the inner call returns.
    final class ReadBurst {
        private var isOpen = false

        func begin(_ engine: MediaEngine) {
            begin(engine.beginRead)
        }

        func end(_ engine: MediaEngine) {
            end(engine.endRead)
        }

        /// Opens the burst; `beginRead` tells the engine (once).
        func begin(_ beginRead: () -> Void) {
            guard !isOpen else { return }
            isOpen = true
            beginRead()
        }

        /// Closes the burst; `endRead` tells the engine (once), and may call back in.
        func end(_ endRead: () -> Void) {
            guard isOpen else { return }
            isOpen = false
            endRead()
        }
    }

    /// Whether writes are being collected for a flush at the end of the outermost burst.
    var isInReadBurst: Bool { readDepth > 0 }

    func beginRead() { readDepth += 1 }

    func endRead() {
        readDepth -= 1
        guard readDepth == 0, needsFlush else { return }
        needsFlush = false
        for socket in udpSockets where socket.needsFlush { socket.flush() }
        // Swapped out first (no allocation: the two arrays keep their capacity), so a flush
        // that closes a channel and calls back in cannot change the list being walked.
        swap(&tcpToFlush, &tcpFlushing)
        for connection in tcpFlushing {
            connection.needsFlush = false
            connection.channel.flush()
        }
        tcpFlushing.removeAll(keepingCapacity: true)
    }
}
