/// The VP8 payload header: the 3-octet frame tag at the start of the first partition of every
/// frame (RFC 7741 §4.3, RFC 6386 §9.1). Present only in the packet with S = 1 and PID = 0.
///
/// ```
///  0 1 2 3 4 5 6 7
/// +-+-+-+-+-+-+-+-+
/// |Size0|H| VER |P|
/// +-+-+-+-+-+-+-+-+
/// |     Size1     |
/// +-+-+-+-+-+-+-+-+
/// |     Size2     |
/// +-+-+-+-+-+-+-+-+
/// ```
public struct VP8PayloadHeader: Hashable, Sendable {
    public static let size = 3
    static let inverseKeyframeMask: UInt8 = 0x01
    static let versionMask: UInt8 = 0x0E
    static let showFrameMask: UInt8 = 0x10

    /// P = 0: an intra frame (keyframe); P is the *inverse* keyframe flag.
    public var isKeyframe: Bool
    /// VER: the bitstream version / profile, 0–7.
    public var version: UInt8
    /// H: show_frame.
    public var showFrame: Bool
    /// Size of the first partition in bytes: Size0 + 8 × Size1 + 2048 × Size2 (19 bits).
    public var firstPartitionSize: UInt32

    /// Reads the payload header at the start of the VP8 data (after the descriptor).
    /// - Throws: `VP8Error.payloadHeaderTooShort` under 3 bytes.
    public init(parsing frame: UnsafeRawBufferPointer) throws(VP8Error) {
        guard frame.count >= Self.size else { throw .payloadHeaderTooShort(needed: Self.size, got: frame.count) }
        let first = frame[0]
        isKeyframe = first & Self.inverseKeyframeMask == 0
        version = (first & Self.versionMask) >> 1
        showFrame = first & Self.showFrameMask != 0
        firstPartitionSize = UInt32(first >> 5) + 8 * UInt32(frame[1]) + 2048 * UInt32(frame[2])
    }
}

/// A keyframe's coded size and upscaling (RFC 6386 §9.1): after the frame tag come the start
/// code 0x9d 0x01 0x2a, then little-endian 16-bit words of a 14-bit dimension and a 2-bit scale.
public struct VP8KeyframeDimensions: Hashable, Sendable {
    /// The start code every keyframe carries after its frame tag.
    public static let startCode: UInt32 = 0x9D012A
    /// Frame tag + start code + width + height.
    public static let headerSize = VP8PayloadHeader.size + 7

    public var width: UInt16
    public var height: UInt16
    /// The 2-bit horizontal upscaling code (0 none, 1 5/4, 2 5/3, 3 2).
    public var horizontalScale: UInt8
    /// The 2-bit vertical upscaling code.
    public var verticalScale: UInt8

    public init(width: UInt16, height: UInt16, horizontalScale: UInt8 = 0, verticalScale: UInt8 = 0) {
        self.width = width
        self.height = height
        self.horizontalScale = horizontalScale
        self.verticalScale = verticalScale
    }

    /// Reads the dimensions from the VP8 data of a keyframe's first packet (frame tag first).
    /// - Throws: `VP8Error.keyframeHeaderTooShort` under 10 bytes, `.badStartCode`.
    public init(parsing frame: UnsafeRawBufferPointer) throws(VP8Error) {
        guard frame.count >= Self.headerSize else {
            throw .keyframeHeaderTooShort(needed: Self.headerSize, got: frame.count)
        }
        let code = UInt32(frame[3]) << 16 | UInt32(frame[4]) << 8 | UInt32(frame[5])
        guard code == Self.startCode else { throw .badStartCode(code) }
        let horizontal = UInt16(frame[6]) | UInt16(frame[7]) << 8
        let vertical = UInt16(frame[8]) | UInt16(frame[9]) << 8
        self.init(
            width: horizontal & 0x3FFF, height: vertical & 0x3FFF,
            horizontalScale: UInt8(horizontal >> 14), verticalScale: UInt8(vertical >> 14))
    }
}

extension VP8PayloadDescriptor {
    /// Whether this descriptor's packet starts a frame's first partition (S = 1, PID = 0), the
    /// only packet carrying the payload header (RFC 7741 §4.3).
    public var startsFrame: Bool { startOfPartition && partitionIndex == 0 }

    /// Whether a VP8 RTP payload begins a keyframe: S = 1, PID = 0 and P = 0 (RFC 7741 §4.3).
    /// Never throws: anything malformed is "not a keyframe". Allocates nothing; the SFU's
    /// simulcast switch waits for this on the target layer.
    public static func isKeyframe(_ payload: UnsafeRawBufferPointer) -> Bool {
        guard let parsed = try? parse(payload) else { return false }
        return isKeyframe(payload, parsed: parsed)
    }

    /// The same, for a payload whose descriptor `parse` already read (`parsed`).
    public static func isKeyframe(_ payload: UnsafeRawBufferPointer, parsed: (descriptor: VP8PayloadDescriptor, size: Int)) -> Bool {
        guard parsed.descriptor.startsFrame else { return false }
        let frame = UnsafeRawBufferPointer(rebasing: payload[parsed.size...])
        return (try? VP8PayloadHeader(parsing: frame))?.isKeyframe ?? false
    }

    /// The coded size of the keyframe a VP8 RTP payload begins, or `nil` when it does not
    /// begin one (not S = 1 / PID = 0, or P = 1).
    /// - Throws: descriptor errors, `.keyframeHeaderTooShort`, `.badStartCode`.
    public static func keyframeDimensions(_ payload: UnsafeRawBufferPointer) throws(VP8Error) -> VP8KeyframeDimensions? {
        let (descriptor, size) = try parse(payload)
        guard descriptor.startsFrame else { return nil }
        let frame = UnsafeRawBufferPointer(rebasing: payload[size...])
        guard try VP8PayloadHeader(parsing: frame).isKeyframe else { return nil }
        return try VP8KeyframeDimensions(parsing: frame)
    }
}
