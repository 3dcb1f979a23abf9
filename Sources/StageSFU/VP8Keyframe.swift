import StageWire

/// Finds where a VP8 keyframe starts (RFC 7741 §4.2–4.3): the first packet of a frame
/// (S=1, partition 0) whose payload header has the P bit clear.
enum VP8Keyframe {
    static func startsKeyframe(_ payload: UnsafeRawBufferPointer) -> Bool {
        guard let (descriptor, frame) = try? VP8PayloadDescriptor.parsePacket(payload),
              descriptor.startOfPartition, descriptor.partitionIndex == 0,
              let header = try? VP8PayloadHeader(parsing: UnsafeRawBufferPointer(rebasing: payload[frame])) else { return false }
        return header.isKeyframe
    }
}
