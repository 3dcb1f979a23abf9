import StageWire

/// Splits encoded VP8 frames into RTP payloads (RFC 7741 §4): each payload is a payload
/// descriptor (§4.2) followed by a slice of the frame.
///
/// Every descriptor carries X = 1, I = 1 and a 15-bit PictureID (M = 1), N = 0 and PID = 0; S = 1
/// on the first payload of a frame only. The PictureID advances by one per frame and wraps from
/// 0x7FFF to 0 (§4.2). Slices are balanced: a frame of `n` bytes needing `k` payloads gets slices
/// whose sizes differ by at most one byte, so no runt packet trails a frame (as libwebrtc does).
///
/// The caller stamps the RTP header: one timestamp for all payloads of a frame and the marker
/// bit on the last (§4.1) — `RTPPacketWriter.packets(payloads:timestamp:extensions:)` does both.
public struct VP8Packetizer: Sendable {
    /// Keeps RTP + SRTP + UDP + IP under a 1280-byte IPv6 minimum MTU with room for extensions.
    public static let defaultMaxPayloadSize = 1200
    /// Bytes of the descriptor written here: first octet, X octet, two PictureID octets.
    public static let descriptorSize = 4
    /// The PictureID after 0x7FFF is 0 (15 bits).
    public static let pictureIDMask: UInt16 = 0x7FFF

    /// Largest payload produced, descriptor included; at least `descriptorSize + 1`.
    public let maxPayloadSize: Int
    /// The PictureID the next frame will carry.
    public private(set) var nextPictureID: UInt16

    /// - Parameters:
    ///   - maxPayloadSize: bytes per RTP payload including the descriptor; raised to
    ///     `descriptorSize + 1` if smaller.
    ///   - initialPictureID: the first frame's PictureID (low 15 bits); random by default, as
    ///     senders start at a random value.
    public init(maxPayloadSize: Int = defaultMaxPayloadSize, initialPictureID: UInt16 = .random(in: 0...pictureIDMask)) {
        self.maxPayloadSize = max(maxPayloadSize, Self.descriptorSize + 1)
        self.nextPictureID = initialPictureID & Self.pictureIDMask
    }

    /// Splits one encoded frame into RTP payloads and advances the PictureID.
    /// - Parameter frame: one whole VP8 frame as the encoder produced it.
    /// - Returns: the payloads in sending order; empty (and the PictureID unchanged) for an
    ///   empty frame, which has nothing to send.
    public mutating func packetize(_ frame: [UInt8]) -> [[UInt8]] {
        guard !frame.isEmpty else { return [] }
        let pictureID = nextPictureID
        nextPictureID = (nextPictureID &+ 1) & Self.pictureIDMask

        let capacity = maxPayloadSize - Self.descriptorSize
        let count = (frame.count + capacity - 1) / capacity
        let base = frame.count / count
        let longer = frame.count % count  // the first `longer` slices carry one byte more
        var payloads: [[UInt8]] = []
        payloads.reserveCapacity(count)
        var start = 0
        for index in 0..<count {
            let size = base + (index < longer ? 1 : 0)
            let descriptor = VP8PayloadDescriptor(startOfPartition: index == 0, pictureID: pictureID, longPictureID: true)
            var payload: [UInt8] = []
            payload.reserveCapacity(Self.descriptorSize + size)
            descriptor.serialize(into: &payload)
            payload.append(contentsOf: frame[start..<(start + size)])
            payloads.append(payload)
            start += size
        }
        return payloads
    }
}
