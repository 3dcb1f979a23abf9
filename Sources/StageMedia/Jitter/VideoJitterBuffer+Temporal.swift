import StageWire

extension VP8PayloadDescriptor {
    /// The PictureID space: 2^15 or 2^7 values (M, RFC 7741 §4.2).
    var pictureIDMask: UInt16 { longPictureID ? 0x7FFF : 0x7F }
}

/// Which temporal layers can still be decoded after frames were lost, by RFC 7741 §4.2 read
/// the way libwebrtc's VP8 reference finder reads it: a TL0 frame predicts from the TL0 frames
/// before it; a frame with Y = 1 only from TL0; any other frame of layer u from the newest frames
/// of layers 0…u. No frame predicts from one with N = 1, so losing it breaks nothing.
struct TemporalLayerTracker: Sendable {
    /// Bit u set: the newest frame of layer u that a later frame may predict from was decoded.
    private(set) var intactLayers: UInt8 = Self.allLayers
    /// PictureID and TL0PICIDX of the newest frame taken out of the buffer, decoded or not.
    var lastPictureID: UInt16?
    var lastTL0PicIdx: UInt8?

    /// TID is two bits: layers 0…3.
    static let allLayers: UInt8 = 0b1111

    func canDecode(_ frame: VP8PayloadDescriptor) -> Bool {
        guard let layer = frame.temporalLayerID else { return true }
        if layer == 0 || frame.layerSync { return intactLayers & 1 != 0 }
        let needed: UInt8 = (1 << (layer + 1)) - 1
        return intactLayers & needed == needed
    }

    /// A keyframe resets every reference buffer (RFC 6386 §9.7).
    mutating func decodedKeyframe(_ frame: VP8PayloadDescriptor) {
        intactLayers = Self.allLayers
        taken(frame)
    }

    /// A frame decoded after `canDecode` allowed it: its layer is whole again (after a Y frame,
    /// later frames of its layer predict from nothing older of that layer).
    mutating func decoded(_ frame: VP8PayloadDescriptor) {
        if let layer = frame.temporalLayerID { intactLayers |= 1 << layer }
        taken(frame)
    }

    /// A frame held but not decoded (lost a reference of its own).
    mutating func skipped(_ frame: VP8PayloadDescriptor) {
        lost(frame)
        taken(frame)
    }

    /// A frame that will never be decoded: frames predicting from it cannot be either.
    mutating func lost(_ frame: VP8PayloadDescriptor) {
        guard !frame.nonReferenceFrame else { return }
        if let layer = frame.temporalLayerID { intactLayers &= ~(1 << layer) } else { intactLayers = 0 }
    }

    /// Frames lost without a packet left to tell their layer, known to be above TL0 (the
    /// TL0PICIDX went on): every layer above the base may have lost a reference.
    mutating func lostFramesAboveBase() {
        intactLayers &= 1
    }

    private mutating func taken(_ frame: VP8PayloadDescriptor) {
        lastPictureID = frame.pictureID
        lastTL0PicIdx = frame.tl0PicIdx
    }
}

extension VideoJitterBuffer {
    /// Most PictureIDs a skip may jump over; a larger jump is not a few lost frames.
    static let maxSkippedPictures = 32

    /// A gap at `gap` that will not be repaired in time, while decoding: when every frame lost
    /// there is above the base layer (their TL0PICIDX runs on, RFC 7741 §4.2), drops them and goes
    /// on at the next frame's first packet, marking the layers that lost a reference. Returns
    /// false, changing nothing, when only a keyframe can help: a TL0 frame was lost, or the
    /// descriptors carry no TID, TL0PICIDX or PictureID to tell.
    mutating func skipFramesAboveBaseLayer(lostAt gap: Int64) -> Bool {
        guard let floor, let lastPicture = temporal.lastPictureID, let lastTL0 = temporal.lastTL0PicIdx,
            let resume = packets.lazy.filter({ $0.key > gap && $0.value.descriptor?.startsFrame == true }).map(\.key).min(),
            let next = packets[resume]?.descriptor, let nextLayer = next.temporalLayerID, let nextPicture = next.pictureID,
            next.tl0PicIdx == (nextLayer == 0 ? lastTL0 &+ 1 : lastTL0)
        else { return false }
        let missingPictures = Int((nextPicture &- lastPicture &- 1) & next.pictureIDMask)
        guard missingPictures <= Self.maxSkippedPictures else { return false }
        var lostFrames: [VP8PayloadDescriptor] = []
        var seenTimestamps = Set<UInt32>()
        for (sequence, held) in packets where sequence >= floor && sequence < resume {
            guard let frame = held.descriptor, let layer = frame.temporalLayerID, layer > 0 else { return false }
            if seenTimestamps.insert(held.packet.timestamp).inserted { lostFrames.append(frame) }
        }
        for frame in lostFrames { temporal.lost(frame) }
        if lostFrames.count < missingPictures { temporal.lostFramesAboveBase() }
        temporal.lastPictureID = (nextPicture &- 1) & next.pictureIDMask
        statistics.lossesSkipped += 1
        advanceFloor(to: resume)
        return true
    }
}
