/// Frames and deframes packets on a byte stream as RFC 4571 §2 defines: each packet is
/// preceded by its length as a 16-bit big-endian number. ICE-TCP (RFC 6544 §3) carries STUN,
/// DTLS, RTP and RTCP this way.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |             LENGTH            |  RTP or RTCP packet ...       |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// Reading: ``append(_:)`` what the socket gave, in pieces of any size, then call
/// ``nextFrame()`` until it returns `nil`. The framer holds at most ``bufferLimit`` bytes and
/// refuses frames longer than ``maximumFrameLength``; either breach is fatal (the stream's frame
/// boundary can no longer be trusted) and every later call throws the same error. A
/// zero-length frame is returned as an empty array (RFC 4571 does not forbid it).
///
/// Frames are found by ``RFC4571Scanner``, the scan the media server's in-place reader uses too.
public struct RFC4571Framer: Sendable {
    /// §2: LENGTH is 16 bits.
    public static let lengthFieldMaximum = RFC4571Scanner.lengthFieldMaximum
    /// Bytes of the LENGTH field.
    public static let prefixLength = RFC4571Scanner.prefixLength

    /// The longest frame accepted, at most 65,535.
    public let maximumFrameLength: Int
    private var buffer: ByteStreamBuffer
    private var failure: FramingError?

    /// - Parameters:
    ///   - maximumFrameLength: frames declared longer are a fatal `frameTooLarge` (clamped to
    ///     1...65,535; ICE-TCP media rarely needs more than a few kilobytes).
    ///   - bufferLimit: the most bytes held at once (raised to one whole maximal frame).
    public init(maximumFrameLength: Int = RFC4571Framer.lengthFieldMaximum, bufferLimit: Int = 256 * 1024) {
        let maximum = RFC4571Scanner.clampedMaximum(maximumFrameLength)
        self.maximumFrameLength = maximum
        self.buffer = ByteStreamBuffer(limit: max(bufferLimit, maximum + Self.prefixLength))
    }

    /// The most bytes held at once.
    public var bufferLimit: Int { buffer.limit }
    /// Bytes received and not yet returned in a frame.
    public var bufferedCount: Int { buffer.count }

    /// Adds bytes read from the stream.
    /// - Throws: `bufferLimitExceeded` (fatal), or the earlier fatal error.
    public mutating func append<Bytes: Collection>(_ bytes: Bytes) throws(FramingError) where Bytes.Element == UInt8 {
        if let failure { throw failure }
        do {
            try buffer.append(bytes)
        } catch {
            failure = error
            throw error
        }
    }

    /// The next whole frame's payload, or `nil` until more bytes arrive.
    /// - Throws: `frameTooLarge` (fatal), or the earlier fatal error.
    public mutating func nextFrame() throws(FramingError) -> [UInt8]? {
        if let failure { throw failure }
        let maximum = maximumFrameLength
        var frame: [UInt8]?
        let (consumed, outcome) = buffer.withUnsafeMutableBytes { bytes in
            RFC4571Scanner.scan(bytes, maximumFrameLength: maximum) { payload in
                frame = Array(payload)
                return false
            }
        }
        buffer.consume(consumed)
        if case .frameTooLarge(let length) = outcome {
            let error = FramingError.frameTooLarge(length: length, limit: maximum)
            failure = error
            throw error
        }
        return frame
    }

    /// Appends `bytes` and returns every frame now whole.
    public mutating func frames<Bytes: Collection>(after bytes: Bytes) throws(FramingError) -> [[UInt8]]
    where Bytes.Element == UInt8 {
        try append(bytes)
        var frames: [[UInt8]] = []
        while let frame = try nextFrame() { frames.append(frame) }
        return frames
    }

    /// One packet framed for the stream: its length, then its bytes.
    /// - Throws: `payloadTooLong` over 65,535 bytes.
    public static func frame<Payload: Collection>(_ payload: Payload) throws(FramingError) -> [UInt8]
    where Payload.Element == UInt8 {
        guard payload.count <= lengthFieldMaximum else {
            throw .payloadTooLong(length: payload.count, limit: lengthFieldMaximum)
        }
        var out: [UInt8] = []
        out.reserveCapacity(prefixLength + payload.count)
        out.appendBigEndian(UInt16(payload.count))
        out.append(contentsOf: payload)
        return out
    }
}
