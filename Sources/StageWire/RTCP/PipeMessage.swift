/// What two routers' pipe ends tell each other besides RTP and standard RTCP feedback, as RTCP
/// APP packets (RFC 3550 §6.7) named `PRSC`, the subtype saying which:
///
/// ```
/// |V=2|P| subtype |   PT=APP=204  |          length=5             |
/// |                    SSRC of the sending end                     |
/// |                          name: "PRSC"                          |
/// |                 piped producer (its index on the pipe)         |
/// |  subtype 1: layer SSRC   — layer (16 bits) | reserved (16)     |
/// |                 SSRC the layer arrives on now                  |
/// |  subtype 2: demand       — layers wanted (bit n: layer n)      |
/// |                 reserved (0)                                   |
/// |  subtype 3: layer state  — layer (16 bits) | flags (16): bit 0 paused |
/// |                 the layer's recent peak, bits per second       |
/// ```
///
/// and, for the pipe's round-trip time, without a producer (its word reserved, 0):
///
/// ```
/// |  subtype 4: echo request — token, 64 bits (the sender's clock) |
/// |  subtype 5: echo reply   — the request's token                 |
/// ```
///
/// The origin end announces each layer's SSRC (subtype 1) before that SSRC's first packet and
/// again every second, and every second each simulcast layer's dynacast state (subtype 3: a
/// layer its publisher was told to pause stays on offer to the far side's allocators at its
/// peak); the far end tells which layers its subscribers use (subtype 2), for the origin's
/// dynacast. The origin asks for an echo every second (subtype 4), which the far end answers at
/// once (subtype 5): the pipe's delay. Reserved bits are sent as 0 and ignored. Any other APP
/// packet is not a pipe message.
public enum PipeMessage: Hashable, Sendable {
    /// Packets of the piped producer's `layer` (0 for a track without simulcast) arrive on `ssrc`.
    case layerSSRC(producer: UInt32, layer: UInt16, ssrc: UInt32)
    /// The far end's subscribers use these layers of the piped producer (bit n: layer n).
    case demand(producer: UInt32, layers: UInt32)
    /// Whether the piped producer's publisher was told to pause `layer` (dynacast), and that
    /// layer's recent peak bitrate at the origin.
    case layerState(producer: UInt32, layer: UInt16, paused: Bool, peakBitsPerSecond: UInt32)
    /// Asks the other end to send `token` back at once.
    case echoRequest(token: UInt64)
    /// The token of an echo request.
    case echoReply(token: UInt64)

    /// The APP name, "PRSC".
    public static let name: [UInt8] = Array("PRSC".utf8)
    static let bodySize = 20

    /// The APP packet carrying it, from the end whose SSRC is `sender`.
    public func packet(sender: UInt32) -> RTCPRawPacket {
        var body: [UInt8] = []
        body.reserveCapacity(Self.bodySize)
        body.appendBigEndian(sender)
        body.append(contentsOf: Self.name)
        switch self {
        case let .layerSSRC(producer, layer, ssrc):
            body.appendBigEndian(producer)
            body.appendBigEndian(layer)
            body.appendBigEndian(UInt16(0))
            body.appendBigEndian(ssrc)
        case let .demand(producer, layers):
            body.appendBigEndian(producer)
            body.appendBigEndian(layers)
            body.appendBigEndian(UInt32(0))
        case let .layerState(producer, layer, paused, peak):
            body.appendBigEndian(producer)
            body.appendBigEndian(layer)
            body.appendBigEndian(UInt16(paused ? 1 : 0))
            body.appendBigEndian(peak)
        case let .echoRequest(token), let .echoReply(token):
            body.appendBigEndian(UInt32(0))
            body.appendBigEndian(UInt32(truncatingIfNeeded: token >> 32))
            body.appendBigEndian(UInt32(truncatingIfNeeded: token))
        }
        return RTCPRawPacket(packetType: .applicationDefined, count: subtype, body: body)
    }

    /// Appends its APP packet.
    public func serialize(sender: UInt32, into out: inout [UInt8]) {
        // A fixed 20-byte body and a subtype under 32: nothing can fail.
        try? packet(sender: sender).serialize(into: &out)
    }

    var subtype: UInt8 {
        switch self {
        case .layerSSRC: 1
        case .demand: 2
        case .layerState: 3
        case .echoRequest: 4
        case .echoReply: 5
        }
    }

    /// The pipe message an RTCP packet carries; nil for any packet that is not one: another
    /// type or name, an unknown subtype, or a body of another size.
    public init?(_ packet: RTCPRawPacket) {
        guard packet.packetType == .applicationDefined, packet.body.count == Self.bodySize else { return nil }
        let message: PipeMessage? = packet.body.withUnsafeBytes { bytes in
            var reader = RTPByteReader(bytes)
            guard reader.readUInt32() != nil, reader.readBytes(4) == Self.name, let producer = reader.readUInt32(),
                  let first = reader.readUInt32(), let second = reader.readUInt32() else { return nil }
            switch packet.count {
            case 1: return .layerSSRC(producer: producer, layer: UInt16(first >> 16), ssrc: second)
            case 2: return .demand(producer: producer, layers: first)
            case 3: return .layerState(producer: producer, layer: UInt16(first >> 16), paused: first & 1 != 0, peakBitsPerSecond: second)
            case 4: return .echoRequest(token: UInt64(first) << 32 | UInt64(second))
            case 5: return .echoReply(token: UInt64(first) << 32 | UInt64(second))
            default: return nil
            }
        }
        guard let message else { return nil }
        self = message
    }
}
