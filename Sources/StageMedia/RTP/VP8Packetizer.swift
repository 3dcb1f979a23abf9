import StageWire

/// Splits encoded VP8 frames into RTP payloads (RFC 7741 §4): each payload is a payload
/// descriptor (§4.2) followed by a slice of the frame.
///
/// Every descriptor carries X = 1, I = 1 and a 15-bit PictureID (M = 1), and PID = 0; S = 1
/// on the first payload of a frame only. The PictureID advances by one per frame and wraps from
/// 0x7FFF to 0 (§4.2). A frame with temporal layer information (`packetize(_:)` of an
/// `EncodedVideoFrame` with a `temporalLayerID`) also has L = 1 and T = 1 in every descriptor:
/// TL0PICIDX, then TID and Y, and N as the frame says (§4.2); other frames have N = 0.
///
/// Slices are balanced: a frame of `n` bytes needing `k` payloads gets slices whose sizes
/// differ by at most one byte, so no runt packet trails a frame (as libwebrtc does).
///
/// The caller stamps the RTP header: one timestamp for all payloads of a frame and the marker
/// bit on the last (§4.1) — `RTPPacketWriter.packets(payloads:timestamp:extensions:)` does both.
public struct VP8Packetizer: Sendable {
    /// Keeps RTP + SRTP + UDP + IP under a 1280-byte IPv6 minimum MTU with room for extensions.
    public static let defaultMaxPayloadSize = 1200
    /// Bytes of the descriptor written here: first octet, X octet, two PictureID octets.
    public static let descriptorSize = 4
    /// Bytes of the descriptor of a frame with a temporal layer: `descriptorSize`, TL0PICIDX and
    /// the TID/Y/KEYIDX octet.
    public static let temporalDescriptorSize = 6
    /// The PictureID after 0x7FFF is 0 (15 bits).
    public static let pictureIDMask: UInt16 = 0x7FFF

    /// Largest payload produced, descriptor included; at least `descriptorSize + 1` (frames with
    /// a temporal layer exceed it only when it is below `temporalDescriptorSize + 1`).
    public let maxPayloadSize: Int
    /// The PictureID the next frame will carry.
    public private(set) var nextPictureID: UInt16
    /// The TL0PICIDX the next TL0 frame will carry; frames of higher layers carry the one of the
    /// TL0 frame before them (this − 1, wrapping at 8 bits).
    public private(set) var nextTL0PicIdx: UInt8

    /// - Parameters:
    ///   - maxPayloadSize: bytes per RTP payload including the descriptor; raised to
    ///     `descriptorSize + 1` if smaller. With temporal layers a descriptor takes 2 bytes
    ///     more; each payload still carries at least one byte of the frame.
    ///   - initialPictureID: the first frame's PictureID (low 15 bits); random by default, as
    ///     senders start at a random value.
    ///   - initialTL0PicIdx: the first TL0 frame's TL0PICIDX; random by default, likewise.
    public init(maxPayloadSize: Int = defaultMaxPayloadSize, initialPictureID: UInt16 = .random(in: 0...pictureIDMask),
                initialTL0PicIdx: UInt8 = .random(in: 0...UInt8.max)) {
        self.maxPayloadSize = max(maxPayloadSize, Self.descriptorSize + 1)
        self.nextPictureID = initialPictureID & Self.pictureIDMask
        self.nextTL0PicIdx = initialTL0PicIdx
    }

    /// Splits one encoded frame into RTP payloads and advances the PictureID.
    /// - Parameter frame: one whole VP8 frame as the encoder produced it.
    /// - Returns: the payloads in sending order; empty (and the PictureID unchanged) for an
    ///   empty frame, which has nothing to send.
    public mutating func packetize(_ frame: [UInt8]) -> [[UInt8]] {
        packetize(frame, temporal: nil)
    }

    /// Splits an encoder's frame into RTP payloads, with its temporal layer information when it
    /// has a `temporalLayerID` (TL0PICIDX, TID, Y, N: RFC 7741 §4.2); advances the PictureID, and
    /// the TL0PICIDX on a TL0 frame. Without a `temporalLayerID` the payloads are those of
    /// `packetize(_ frame: [UInt8])`.
    public mutating func packetize(_ frame: EncodedVideoFrame) -> [[UInt8]] {
        let temporal = frame.temporalLayerID.map {
            TemporalFields(layerID: $0, layerSync: frame.layerSync, nonReference: frame.nonReferenceFrame)
        }
        return packetize(frame.data, temporal: temporal)
    }

    /// What a frame's descriptors say of its temporal layer (RFC 7741 §4.2).
    private struct TemporalFields {
        var layerID: UInt8
        var layerSync: Bool
        var nonReference: Bool
    }

    private mutating func packetize(_ frame: [UInt8], temporal: TemporalFields?) -> [[UInt8]] {
        guard !frame.isEmpty else { return [] }
        let pictureID = nextPictureID
        nextPictureID = (nextPictureID &+ 1) & Self.pictureIDMask
        var tl0PicIdx: UInt8?
        if let temporal {
            if temporal.layerID == 0 { nextTL0PicIdx &+= 1 }
            tl0PicIdx = nextTL0PicIdx &- 1
        }
        let descriptorSize = temporal == nil ? Self.descriptorSize : Self.temporalDescriptorSize

        let capacity = max(1, maxPayloadSize - descriptorSize)
        let count = (frame.count + capacity - 1) / capacity
        let base = frame.count / count
        let longer = frame.count % count  // the first `longer` slices carry one byte more
        var payloads: [[UInt8]] = []
        payloads.reserveCapacity(count)
        var start = 0
        for index in 0..<count {
            let size = base + (index < longer ? 1 : 0)
            let descriptor = VP8PayloadDescriptor(
                nonReferenceFrame: temporal?.nonReference ?? false, startOfPartition: index == 0, pictureID: pictureID,
                longPictureID: true, tl0PicIdx: tl0PicIdx, temporalLayerID: temporal?.layerID,
                layerSync: temporal?.layerSync ?? false)
            var payload: [UInt8] = []
            payload.reserveCapacity(descriptorSize + size)
            descriptor.serialize(into: &payload)
            payload.append(contentsOf: frame[start..<(start + size)])
            payloads.append(payload)
            start += size
        }
        return payloads
    }
}
