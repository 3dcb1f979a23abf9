public import NIOCore

/// Reads RFC 4571 §2 frames (a 16-bit big-endian length, then the packet) off an ICE-TCP byte
/// stream and hands each packet to a closure *in place*, as mutable bytes inside one buffer the
/// reader owns, so SRTP can be unprotected where it lies: no copy or allocation per packet.
///
/// StageWire's `RFC4571Framer` returns each frame as a new array, which suits the TURN client;
/// the media port's packet path must not allocate, hence this reader.
///
/// What a read leaves incomplete (at most one frame and its prefix, since every whole frame is
/// consumed) stays in the buffer for the next read. A frame declared longer than
/// ``maximumFrameLength`` is fatal: the stream is not to be trusted any more.
public struct RFC4571StreamReader {
    /// RFC 4571 §2: the LENGTH field is 16 bits.
    public static let prefixLength = 2

    public enum Outcome: Equatable, Sendable {
        /// Every whole frame was handed over; the rest waits for more bytes.
        case needMoreBytes
        /// The closure asked to stop (the connection is closing); the remaining bytes are dropped.
        case stopped
        /// A frame declared `length` bytes, over the maximum. Fatal.
        case frameTooLarge(length: Int)
    }

    /// The longest packet accepted.
    public let maximumFrameLength: Int
    private var pending: ByteBuffer

    public init(maximumFrameLength: Int, allocator: ByteBufferAllocator = ByteBufferAllocator()) {
        self.maximumFrameLength = min(max(maximumFrameLength, 1), 0xFFFF)
        pending = allocator.buffer(capacity: 0)
    }

    /// Bytes received and not yet handed over in a frame.
    public var bufferedCount: Int { pending.readableBytes }

    /// Appends what the socket read and hands over every frame now whole.
    /// - Parameter body: gets each packet (the frame without its length); returns false to stop.
    public mutating func read(_ incoming: inout ByteBuffer, _ body: (UnsafeMutableRawBufferPointer) -> Bool) -> Outcome {
        pending.writeBuffer(&incoming)
        var outcome = Outcome.needMoreBytes
        let consumed = pending.withUnsafeMutableReadableBytes { bytes -> Int in
            var offset = 0
            while bytes.count - offset >= Self.prefixLength {
                let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
                guard length <= maximumFrameLength else {
                    outcome = .frameTooLarge(length: length)
                    return bytes.count
                }
                let start = offset + Self.prefixLength
                guard bytes.count - start >= length else { break }
                offset = start + length
                guard body(UnsafeMutableRawBufferPointer(rebasing: bytes[start ..< offset])) else {
                    outcome = .stopped
                    return bytes.count
                }
            }
            return offset
        }
        pending.moveReaderIndex(forwardBy: consumed)
        if pending.readableBytes == 0 {
            pending.clear()
        } else if pending.readerIndex > 0 {
            pending.discardReadBytes()
        }
        return outcome
    }
}
