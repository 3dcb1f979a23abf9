@testable import StageMedia
import StageWire

/// Synthetic VP8 frames and packet streams for the packetizer and jitter buffer tests.
enum RTPTestMedia {
    /// A VP8 keyframe of `size` bytes (at least 10): frame tag with P = 0 and show_frame, start
    /// code, dimensions (RFC 6386 §9.1), then a deterministic filler.
    static func keyframe(size: Int, width: UInt16 = 640, height: UInt16 = 480, seed: Int = 0) -> [UInt8] {
        var frame: [UInt8] = [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A,
                              UInt8(width & 0xFF), UInt8(width >> 8), UInt8(height & 0xFF), UInt8(height >> 8)]
        frame += filler(count: max(size, 10) - 10, seed: seed)
        return frame
    }

    /// A VP8 delta frame of `size` bytes (at least 3): frame tag with P = 1, then filler.
    static func deltaFrame(size: Int, seed: Int = 0) -> [UInt8] {
        [0x11, 0x01, 0x00] + filler(count: max(size, 3) - 3, seed: seed)
    }

    static func filler(count: Int, seed: Int) -> [UInt8] {
        var state = UInt32(truncatingIfNeeded: seed &* 2_654_435_761 &+ 1)
        return (0..<count).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }

    /// A raw VP8 RTP payload: descriptor bytes then data.
    static func payload(start: Bool, pictureID: UInt16? = 1, data: [UInt8]) -> [UInt8] {
        VP8PayloadDescriptor(startOfPartition: start, pictureID: pictureID).serialized() + data
    }
}

/// A sender of VP8 frames as received packets: packetizer, sequence numbers, 90 kHz timestamps.
struct VP8TestSender {
    var packetizer: VP8Packetizer
    var sequenceNumber: UInt16
    var timestamp: UInt32
    /// Timestamp step per frame (30 fps at 90 kHz).
    var frameInterval: UInt32 = 3000

    init(maxPayloadSize: Int = 100, firstSequenceNumber: UInt16 = 1000, pictureID: UInt16 = 0, timestamp: UInt32 = 90_000) {
        packetizer = VP8Packetizer(maxPayloadSize: maxPayloadSize, initialPictureID: pictureID)
        sequenceNumber = firstSequenceNumber
        self.timestamp = timestamp
    }

    /// The packets of one frame, marker on the last.
    mutating func send(_ frame: [UInt8]) -> [ReceivedRTPPacket] {
        send(payloads: packetizer.packetize(frame))
    }

    /// The packets of one frame whose descriptors carry its temporal layer (TL0PICIDX, TID, Y, N).
    mutating func send(_ frame: EncodedVideoFrame) -> [ReceivedRTPPacket] {
        send(payloads: packetizer.packetize(frame))
    }

    private mutating func send(payloads: [[UInt8]]) -> [ReceivedRTPPacket] {
        defer { timestamp &+= frameInterval }
        return payloads.indices.map { index in
            defer { sequenceNumber &+= 1 }
            return ReceivedRTPPacket(sequenceNumber: sequenceNumber, timestamp: timestamp, marker: index == payloads.count - 1, payload: payloads[index])
        }
    }

    /// A keyframe then deltas: `kinds` true for keyframe. Returns the frames and their packets.
    mutating func stream(_ kinds: [Bool], size: Int = 250) -> (frames: [[UInt8]], packets: [[ReceivedRTPPacket]]) {
        var frames: [[UInt8]] = []
        var packets: [[ReceivedRTPPacket]] = []
        for (index, isKey) in kinds.enumerated() {
            let frame = isKey ? RTPTestMedia.keyframe(size: size, seed: index) : RTPTestMedia.deltaFrame(size: size, seed: index)
            frames.append(frame)
            packets.append(send(frame))
        }
        return (frames, packets)
    }
}

/// A deterministic generator for shuffles in tests (SplitMix64).
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
