/// The one RFC 4571 §2 frame scan (a 16-bit big-endian LENGTH, then that many bytes) every
/// stream reader builds on: StageWire's `RFC4571Framer` (which copies each frame out, for the
/// TURN client and tests) and the media server's ICE-TCP reader (which hands frames over in
/// place, so SRTP is unprotected where it lies).
///
/// The scan itself allocates nothing and copies nothing: it walks `bytes`, hands each whole
/// frame to a closure as a slice of `bytes`, and says how far it got and why it stopped. The
/// caller owns the buffer, drops the consumed prefix, keeps the rest for the next read, and
/// decides what a fatal outcome means (both readers latch it: the stream has lost its frame
/// boundary and is not read any more).
public enum RFC4571Scanner {
    /// §2: LENGTH is 16 bits.
    public static let lengthFieldMaximum = 0xFFFF
    /// Bytes of the LENGTH field.
    public static let prefixLength = 2

    /// Why a scan stopped.
    public enum Outcome: Hashable, Sendable {
        /// Every whole frame was handed over; what is left (less than a prefix, or a prefix and
        /// part of its frame) waits for more bytes.
        case needMoreBytes
        /// The closure asked to stop after the frame it was last given.
        case stopped
        /// The LENGTH at the consumed offset declares `length` bytes, over the maximum. Fatal:
        /// nothing after it can be trusted to be a frame boundary.
        case frameTooLarge(length: Int)
    }

    /// A configured maximum made usable: at least 1, at most what LENGTH can say (65,535).
    public static func clampedMaximum(_ maximumFrameLength: Int) -> Int {
        min(max(maximumFrameLength, 1), lengthFieldMaximum)
    }

    /// Hands every whole frame at the start of `bytes` to `body`, in order, in place.
    /// - Parameters:
    ///   - bytes: the unread bytes of the stream, starting at a frame boundary.
    ///   - maximumFrameLength: a LENGTH above it is `frameTooLarge` (pass a clamped value).
    ///   - body: gets each frame's payload (without its LENGTH), mutable; returns false to stop.
    /// - Returns: `consumed`, the bytes of every frame handed over with their prefixes (the
    ///   caller drops them; a `frameTooLarge` prefix is not included), and why the scan stopped.
    public static func scan(_ bytes: UnsafeMutableRawBufferPointer, maximumFrameLength: Int,
                            _ body: (UnsafeMutableRawBufferPointer) -> Bool) -> (consumed: Int, outcome: Outcome) {
        var offset = 0
        while bytes.count - offset >= prefixLength {
            let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            guard length <= maximumFrameLength else { return (offset, .frameTooLarge(length: length)) }
            let start = offset + prefixLength
            guard bytes.count - start >= length else { break }
            offset = start + length
            guard body(UnsafeMutableRawBufferPointer(rebasing: bytes[start ..< offset])) else { return (offset, .stopped) }
        }
        return (offset, .needMoreBytes)
    }
}
