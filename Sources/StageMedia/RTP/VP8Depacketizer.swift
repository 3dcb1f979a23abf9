import StageWire

/// Puts one VP8 frame back together from its RTP packets (RFC 7741 §4): checks they form one
/// frame, strips each payload descriptor (§4.2, parsed by StageWire) and concatenates the rest.
///
/// One frame is: contiguous sequence numbers (wrapping at 2^16) sharing one timestamp, the first
/// with S = 1 and PID = 0, the last — and only the last — with the marker bit (§4.1, §4.4).
/// Malformed or incomplete input throws a `VP8DepacketizerError`; it never traps.
public enum VP8Depacketizer {
    /// Assembles the packets of one frame, given in sequence order.
    /// - Throws: `VP8DepacketizerError` naming the first packet that breaks the rules.
    public static func assemble(_ packets: some Collection<ReceivedRTPPacket>) throws(VP8DepacketizerError) -> ReceivedVP8Frame {
        guard let first = packets.first else { throw .noPackets }
        var data: [UInt8] = []
        data.reserveCapacity(packets.reduce(0) { $0 + $1.payload.count })
        var pictureID: UInt16?
        var start = FrameStart.notKeyframe
        var expectedSequence = first.sequenceNumber
        let total = packets.count
        var index = 0
        for packet in packets {
            guard packet.sequenceNumber == expectedSequence else { throw .sequenceGap(expected: expectedSequence, got: packet.sequenceNumber) }
            guard packet.timestamp == first.timestamp else {
                throw .timestampMismatch(expected: first.timestamp, got: packet.timestamp, sequenceNumber: packet.sequenceNumber)
            }
            let (descriptor, frame) = try parse(packet)
            if index == 0 {
                guard descriptor.startsFrame else { throw .missingFrameStart(sequenceNumber: packet.sequenceNumber) }
                pictureID = descriptor.pictureID
                start = FrameStart(vp8Data: packet.payload[frame])
            } else {
                guard !descriptor.startsFrame else { throw .unexpectedFrameStart(sequenceNumber: packet.sequenceNumber) }
                guard descriptor.pictureID == pictureID else {
                    throw .pictureIDMismatch(expected: pictureID, got: descriptor.pictureID, sequenceNumber: packet.sequenceNumber)
                }
            }
            let isLast = index == total - 1
            if packet.marker, !isLast { throw .markerBeforeEnd(sequenceNumber: packet.sequenceNumber) }
            if isLast, !packet.marker { throw .missingMarker(sequenceNumber: packet.sequenceNumber) }
            data.append(contentsOf: packet.payload[frame])
            expectedSequence &+= 1
            index += 1
        }
        return ReceivedVP8Frame(
            data: data, isKeyframe: start.isKeyframe, pictureID: pictureID, width: start.width, height: start.height,
            timestamp: first.timestamp, firstSequenceNumber: first.sequenceNumber, packetCount: index)
    }

    /// The descriptor and the range of VP8 data of one packet.
    static func parse(_ packet: ReceivedRTPPacket) throws(VP8DepacketizerError) -> (VP8PayloadDescriptor, Range<Int>) {
        let result = packet.payload.withUnsafeBytes { bytes in
            Result { () throws(VP8Error) in try VP8PayloadDescriptor.parsePacket(bytes) }
        }
        switch result {
        case let .success(parsed): return (parsed.descriptor, parsed.frame)
        case let .failure(error): throw .malformedPayload(sequenceNumber: packet.sequenceNumber, error)
        }
    }
}

/// What the first packet of a frame says about it: the payload header's keyframe bit (RFC 7741
/// §4.3) and, for keyframes, the coded size (RFC 6386 §9.1). Shared by the depacketizer and the
/// jitter buffer so both agree on what a keyframe is.
struct FrameStart: Hashable, Sendable {
    static let notKeyframe = FrameStart(isKeyframe: false, width: nil, height: nil)

    var isKeyframe: Bool
    var width: Int?
    var height: Int?

    init(isKeyframe: Bool, width: Int?, height: Int?) {
        self.isKeyframe = isKeyframe
        self.width = width
        self.height = height
    }

    /// Reads the VP8 data of a frame's first packet (after the descriptor).
    init(vp8Data: ArraySlice<UInt8>) {
        self = vp8Data.withUnsafeBytes { bytes in
            guard let header = try? VP8PayloadHeader(parsing: bytes), header.isKeyframe else { return .notKeyframe }
            let dimensions = try? VP8KeyframeDimensions(parsing: bytes)
            return FrameStart(isKeyframe: true, width: dimensions.map { Int($0.width) }, height: dimensions.map { Int($0.height) })
        }
    }
}
