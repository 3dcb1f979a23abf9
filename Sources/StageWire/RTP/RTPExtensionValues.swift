/// A header extension value codec: how one `a=extmap` URI's bytes read and write.
///
/// Used generically (`header.extensionValue(RTPAbsSendTime.self, id: 2, in: packet)`), so calls
/// are specialized and never boxed in an existential.
public protocol RTPHeaderExtensionValue: Hashable, Sendable {
    /// Bytes the value takes on the wire.
    var marshalSize: Int { get }
    /// Decodes one element's value bytes.
    init(parsing value: UnsafeRawBufferPointer) throws(RTPError)
    /// Writes exactly `marshalSize` bytes at the start of `buffer`, which holds at least that many.
    func write(to buffer: UnsafeMutableRawBufferPointer)
}

extension RTPHeaderExtensionValue {
    /// The value's bytes as a new array.
    public func serialized() -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: marshalSize)
        bytes.withUnsafeMutableBytes { write(to: $0) }
        return bytes
    }

    /// Decodes a value held in an array.
    public init(parsing value: [UInt8]) throws(RTPError) {
        self = try value.withUnsafeBytes { bytes in Result { () throws(RTPError) in try Self(parsing: bytes) } }.get()
    }
}

/// The `a=extmap` URIs of the extensions StageWire decodes.
public enum RTPExtensionURI {
    public static let mid = "urn:ietf:params:rtp-hdrext:sdes:mid"
    public static let rtpStreamID = "urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id"
    public static let repairedRTPStreamID = "urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id"
    public static let absSendTime = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"
    public static let transportWideCC = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
    public static let audioLevel = "urn:ietf:params:rtp-hdrext:ssrc-audio-level"
}

/// abs-send-time: the sender's clock in seconds as 24-bit 6.18 fixed point, i.e. bits 14–37 of
/// a 64-bit NTP timestamp; wraps every 64 s (webrtc.org abs-send-time).
public struct RTPAbsSendTime: RTPHeaderExtensionValue {
    @inlinable public static var byteCount: Int { 3 }
    /// The 24-bit 6.18 value (upper bits ignored when written).
    public var value: UInt32

    @inlinable public init(value: UInt32) { self.value = value & 0x00FF_FFFF }

    /// From a 64-bit NTP timestamp (32.32 fixed point).
    public init(ntpTime: UInt64) { self.init(value: UInt32(truncatingIfNeeded: ntpTime >> 14)) }

    /// Seconds within the 64-second wrap, with 1/262144 s resolution.
    public var seconds: Double { Double(value) / 262_144 }

    @inlinable public var marshalSize: Int { Self.byteCount }

    public init(parsing value: UnsafeRawBufferPointer) throws(RTPError) {
        guard value.count == Self.byteCount else { throw .extensionValueLength(expected: Self.byteCount, got: value.count) }
        self.value = UInt32(value[0]) << 16 | UInt32(value[1]) << 8 | UInt32(value[2])
    }

    @inlinable
    public func write(to buffer: UnsafeMutableRawBufferPointer) {
        buffer[0] = UInt8(truncatingIfNeeded: value >> 16)
        buffer[1] = UInt8(truncatingIfNeeded: value >> 8)
        buffer[2] = UInt8(truncatingIfNeeded: value)
    }
}

/// Transport-wide sequence number: 16 bits, one counter across all streams of a transport
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §2).
public struct RTPTransportSequenceNumber: RTPHeaderExtensionValue {
    @inlinable public static var byteCount: Int { 2 }
    public var value: UInt16

    @inlinable public init(value: UInt16) { self.value = value }

    @inlinable public var marshalSize: Int { Self.byteCount }

    public init(parsing value: UnsafeRawBufferPointer) throws(RTPError) {
        guard value.count == Self.byteCount else { throw .extensionValueLength(expected: Self.byteCount, got: value.count) }
        self.value = UInt16(value[0]) << 8 | UInt16(value[1])
    }

    @inlinable
    public func write(to buffer: UnsafeMutableRawBufferPointer) {
        buffer[0] = UInt8(truncatingIfNeeded: value >> 8)
        buffer[1] = UInt8(truncatingIfNeeded: value)
    }
}

/// Client-to-mixer audio level (RFC 6464 §3): V (voice activity) and a 7-bit level in −dBov,
/// 0 loudest, 127 silence.
public struct RTPAudioLevel: RTPHeaderExtensionValue {
    public static let byteCount = 1
    static let voiceActivityMask: UInt8 = 0x80
    static let levelMask: UInt8 = 0x7F

    public var voiceActivity: Bool
    /// −dBov, 0…127 (only the low 7 bits are written).
    public var level: UInt8

    public init(voiceActivity: Bool, level: UInt8) {
        self.voiceActivity = voiceActivity
        self.level = level & Self.levelMask
    }

    public var marshalSize: Int { Self.byteCount }

    public init(parsing value: UnsafeRawBufferPointer) throws(RTPError) {
        guard value.count == Self.byteCount else { throw .extensionValueLength(expected: Self.byteCount, got: value.count) }
        self.init(voiceActivity: value[0] & Self.voiceActivityMask != 0, level: value[0])
    }

    public func write(to buffer: UnsafeMutableRawBufferPointer) {
        buffer[0] = (voiceActivity ? Self.voiceActivityMask : 0) | (level & Self.levelMask)
    }
}

/// An SDES-item-style text extension: mid (RFC 8843 §14), rtp-stream-id and
/// repaired-rtp-stream-id (RFC 8852 §3, §4). ASCII, not NUL-terminated.
///
/// Decoding stops at the first NUL (some senders pad with them, as libwebrtc tolerates) and
/// requires a non-empty value of printable ASCII (0x21–0x7E), so `text` round-trips exactly.
/// Values up to 15 bytes — every real mid and rid — fit Swift's inline small string: no heap.
public struct RTPIdentifierExtension: RTPHeaderExtensionValue {
    public var text: String

    /// - Throws: `RTPError.invalidExtensionText` if `text` is empty or not printable ASCII.
    public init(text: String) throws(RTPError) {
        guard !text.utf8.isEmpty, text.utf8.allSatisfy(Self.isAllowed) else { throw .invalidExtensionText }
        self.text = text
    }

    public var marshalSize: Int { text.utf8.count }

    public init(parsing value: UnsafeRawBufferPointer) throws(RTPError) {
        let length = value.firstIndex(of: 0) ?? value.count
        let bytes = UnsafeRawBufferPointer(rebasing: value[0..<length])
        guard length > 0, bytes.allSatisfy(Self.isAllowed) else { throw .invalidExtensionText }
        self.text = String(decoding: bytes, as: UTF8.self)
    }

    public func write(to buffer: UnsafeMutableRawBufferPointer) {
        for (index, byte) in text.utf8.enumerated() { buffer[index] = byte }
    }

    private static func isAllowed(_ byte: UInt8) -> Bool { byte >= 0x21 && byte <= 0x7E }
}
