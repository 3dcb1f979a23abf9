import StageWire

/// Makes the VP8 PictureID and TL0PICIDX a subscriber receives continue across simulcast layer
/// switches (RFC 7741 §4.2), as `RTPMunger` does for sequence numbers and timestamps. Each layer
/// numbers its pictures on its own (the SDK starts each at random, browsers too), and a receiver
/// that orders frames by PictureID (libwebrtc) may take the new layer's first frames for old
/// ones. The first packet of a new source continues one after the newest PictureID and
/// TL0PICIDX sent; the source's later packets keep that offset. Pictures not forwarded on
/// purpose (a temporal layer above the consumer's, `skip`) leave no gap either: a receiver that
/// finds a PictureID missing waits for it before decoding a frame that may reference it
/// (libwebrtc's VP8 reference finder), so the later ones move down by one for each, as mediasoup
/// and LiveKit do. KEYIDX is left alone (no publisher here sends temporal key frames). A payload
/// whose descriptor does not parse is left as it is.
public struct VP8PictureMunger: Sendable {
    /// What is added to a source's PictureID (15-bit arithmetic) and TL0PICIDX (8-bit).
    struct Offsets: Sendable, Equatable {
        var pictureID: UInt16 = 0
        var tl0PicIdx: UInt8 = 0
    }

    private var source: UInt32?
    private var offsets = Offsets()
    /// The source's PictureID of the newest picture skipped (counted once however many packets it has).
    private var lastSkipped: UInt16?
    /// A picture was skipped since the last forwarded packet: the next one starts a new run of offsets.
    private var offsetsChanged = false
    /// The newest PictureID written, in the width it was written in, and TL0PICIDX.
    private var lastPictureID: (value: UInt16, isLong: Bool)?
    private var lastTL0PicIdx: UInt8?
    /// Recent runs of offsets, newest last: each source's from its first PictureID (in its own
    /// numbering) on, and a new run after skipped pictures. A retransmission goes out as its
    /// packet first did.
    private var recent: [(source: UInt32, firstPictureID: UInt16?, offsets: Offsets)] = []
    /// Runs remembered for retransmissions, as many as `RTPMunger` remembers epochs.
    static let rememberedRuns = RTPMunger.rememberedEpochs

    public init() {}

    /// Rewrites a forwarded packet's payload (from its first descriptor octet) from `ssrc`.
    public mutating func rewrite(_ payload: UnsafeMutableRawBufferPointer, source ssrc: UInt32) {
        if source != ssrc {
            source = ssrc
            lastSkipped = nil
            startSource(ssrc, payload: UnsafeRawBufferPointer(payload))
        } else if offsetsChanged {
            remember(ssrc, firstPictureID: try? VP8PayloadDescriptor.parse(UnsafeRawBufferPointer(payload)).descriptor.pictureID)
        }
        offsetsChanged = false
        guard let written = Self.apply(offsets, to: payload) else { return }
        if let value = written.pictureID {
            let isLong = written.isLong
            let mask: UInt16 = isLong ? 0x7FFF : 0x7F
            if lastPictureID.map({ Self.isNewer(value & mask, than: $0.value & mask, mask: mask) }) ?? true {
                lastPictureID = (value & mask, isLong)
            }
        }
        if let value = written.tl0PicIdx, lastTL0PicIdx.map({ Self.isNewer(UInt16(value), than: UInt16($0), mask: 0xFF) }) ?? true {
            lastTL0PicIdx = value
        }
    }

    /// A packet of the current source not forwarded on purpose (its temporal layer is above the
    /// consumer's): the pictures after it move down by one for each picture skipped.
    public mutating func skip(_ payload: UnsafeRawBufferPointer, source ssrc: UInt32) {
        guard ssrc == source, let pictureID = (try? VP8PayloadDescriptor.parse(payload))?.descriptor.pictureID,
              pictureID != lastSkipped else { return }
        lastSkipped = pictureID
        offsets.pictureID = (offsets.pictureID &- 1) & 0x7FFF
        offsetsChanged = true
    }

    /// Rewrites a packet sent again (its payload, from the descriptor) with the offsets it was
    /// first forwarded with; nothing is remembered from it.
    public func rewriteRetransmission(_ payload: UnsafeMutableRawBufferPointer, source ssrc: UInt32) {
        let pictureID = (try? VP8PayloadDescriptor.parse(UnsafeRawBufferPointer(payload)))?.descriptor.pictureID.map { $0 & 0x7FFF }
        let run = recent.last { run in
            guard run.source == ssrc else { return false }
            guard let first = run.firstPictureID, let pictureID else { return true }
            return pictureID == first || Self.isNewer(pictureID, than: first, mask: 0x7FFF)
        }
        guard let offsets = run?.offsets else { return }
        _ = Self.apply(offsets, to: payload)
    }

    /// Adds `offsets` to the fields the descriptor carries. Returns what was written (with the
    /// PictureID's width), nil when the descriptor does not parse.
    private static func apply(_ offsets: Offsets, to payload: UnsafeMutableRawBufferPointer)
        -> (pictureID: UInt16?, isLong: Bool, tl0PicIdx: UInt8?)? {
        var isLong = true
        guard let written = try? VP8PayloadDescriptor.mapPictureFields(in: payload, { pictureID, tl0PicIdx in
            isLong = pictureID?.isLong ?? true
            return (pictureID.map { $0.value &+ offsets.pictureID }, tl0PicIdx.map { $0 &+ offsets.tl0PicIdx })
        }) else { return nil }
        return (written.pictureID, isLong, written.tl0PicIdx)
    }

    /// Offsets that put the new source's first PictureID and TL0PICIDX one after the newest sent.
    private mutating func startSource(_ ssrc: UInt32, payload: UnsafeRawBufferPointer) {
        let descriptor = try? VP8PayloadDescriptor.parse(payload).descriptor
        if let last = lastPictureID, let first = descriptor?.pictureID { offsets.pictureID = (last.value &+ 1 &- first) & 0x7FFF }
        if let last = lastTL0PicIdx, let first = descriptor?.tl0PicIdx { offsets.tl0PicIdx = last &+ 1 &- first }
        remember(ssrc, firstPictureID: descriptor?.pictureID)
    }

    /// Starts a run of the current offsets for `ssrc`, from `firstPictureID` on.
    private mutating func remember(_ ssrc: UInt32, firstPictureID: UInt16?) {
        if recent.count == Self.rememberedRuns { recent.removeFirst() }
        recent.append((ssrc, firstPictureID.map { $0 & 0x7FFF }, offsets))
    }

    /// Serial-number order (RFC 1982) in a space of `mask + 1` values.
    static func isNewer(_ a: UInt16, than b: UInt16, mask: UInt16) -> Bool {
        let difference = (a &- b) & mask
        return difference != 0 && difference <= mask / 2
    }
}
