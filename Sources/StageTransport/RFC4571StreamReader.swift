public import NIOCore
public import StageWire

/// Reads RFC 4571 §2 frames (a 16-bit big-endian LENGTH, then the packet) off an ICE-TCP byte
/// stream and hands each packet to a closure in place, as mutable bytes inside the one buffer
/// the reader owns, so SRTP is unprotected where it lies.
///
/// What a read costs: the bytes the socket gave are copied once into the reader's buffer
/// (which allocates only while it grows to the largest read plus one partial frame); frames
/// are then found by StageWire's ``RFC4571Scanner`` (the scan `RFC4571Framer` uses) and handed
/// over without any further copy or allocation per packet. `RFC4571Framer` returns each frame as
/// a new array instead, which suits the TURN client but not the media port's packet path.
///
/// What a read leaves incomplete (at most one prefix and part of its frame, since every whole
/// frame is handed over) stays in the buffer for the next read. A frame declared longer than
/// ``maximumFrameLength`` is fatal and latched: the stream has lost its frame boundary, so that
/// read and every later one return the same `frameTooLarge` and hand nothing over.
public struct RFC4571StreamReader {
    public typealias Outcome = RFC4571Scanner.Outcome

    /// The longest packet accepted (clamped to 1...65,535).
    public let maximumFrameLength: Int
    private var pending: ByteBuffer
    /// The fatal outcome, once there was one.
    private var failure: Outcome?

    public init(maximumFrameLength: Int, allocator: ByteBufferAllocator = ByteBufferAllocator()) {
        self.maximumFrameLength = RFC4571Scanner.clampedMaximum(maximumFrameLength)
        pending = allocator.buffer(capacity: 0)
    }

    /// Bytes received and not yet handed over in a frame.
    public var bufferedCount: Int { pending.readableBytes }

    /// Appends what the socket read and hands over every frame now whole.
    /// - Parameter body: gets each packet (the frame without its LENGTH); returns false to stop
    ///   (the connection is closing): the bytes after that frame are then dropped.
    /// - Returns: `needMoreBytes`, `stopped`, or the fatal `frameTooLarge` (now or from before).
    public mutating func read(_ incoming: inout ByteBuffer, _ body: (UnsafeMutableRawBufferPointer) -> Bool) -> Outcome {
        if let failure { return failure }
        pending.writeBuffer(&incoming)
        let maximum = maximumFrameLength
        let (consumed, outcome) = pending.withUnsafeMutableReadableBytes { bytes in
            RFC4571Scanner.scan(bytes, maximumFrameLength: maximum, body)
        }
        switch outcome {
        case .needMoreBytes:
            pending.moveReaderIndex(forwardBy: consumed)
            if pending.readableBytes == 0 {
                pending.clear()
            } else if pending.readerIndex > 0 {
                pending.discardReadBytes()
            }
        case .stopped:
            pending.clear()
        case .frameTooLarge:
            failure = outcome
            pending = ByteBuffer()
        }
        return outcome
    }
}
