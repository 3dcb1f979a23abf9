import StageWire
import Testing

/// `PipeMessage`: the pipe's APP packets (RFC 3550 §6.7, name PRSC) round-trip through a
/// compound packet, and anything that is not one exactly is not taken for one.
struct PipeMessageTests {
    static let messages: [PipeMessage] = [
        .layerSSRC(producer: 0, layer: 0, ssrc: 0xDEAD_BEEF),
        .layerSSRC(producer: 7, layer: 2, ssrc: 1),
        .demand(producer: 3, layers: 0b101),
        .demand(producer: .max, layers: 0),
        .layerState(producer: 2, layer: 2, paused: true, peakBitsPerSecond: 1_500_000),
        .layerState(producer: 0, layer: 0, paused: false, peakBitsPerSecond: .max),
        .echoRequest(token: 0x0102_0304_0506_0708),
        .echoReply(token: .max),
        .echoReply(token: 0),
    ]

    @Test("an echo's reserved word is ignored")
    func echoReservedWordIgnored() {
        var packet = PipeMessage.echoRequest(token: 77).packet(sender: 9)
        packet.body[8] = 0xFF
        #expect(PipeMessage(packet) == .echoRequest(token: 77))
    }

    @Test("a layer state's reserved flag bits are ignored")
    func reservedFlagsIgnored() {
        var packet = PipeMessage.layerState(producer: 1, layer: 1, paused: false, peakBitsPerSecond: 9).packet(sender: 9)
        packet.body[14] = 0xFF   // flags' high byte
        #expect(PipeMessage(packet) == .layerState(producer: 1, layer: 1, paused: false, peakBitsPerSecond: 9))
        packet.body[15] = 0xFE   // flags' low byte, bit 0 clear
        #expect(PipeMessage(packet) == .layerState(producer: 1, layer: 1, paused: false, peakBitsPerSecond: 9))
        packet.body[15] = 0x01
        #expect(PipeMessage(packet) == .layerState(producer: 1, layer: 1, paused: true, peakBitsPerSecond: 9))
    }

    @Test(arguments: messages)
    func roundTrips(_ message: PipeMessage) throws {
        var bytes: [UInt8] = []
        message.serialize(sender: 42, into: &bytes)
        #expect(bytes.count == 4 + 20)
        let packet = try RTCPPacket(parsing: bytes)
        guard case .raw(let raw) = packet else { Issue.record("not kept raw: \(packet)"); return }
        #expect(PipeMessage(raw) == message)
    }

    /// (what is wrong, the packet): none is a pipe message.
    static let notMessages: [(String, RTCPRawPacket)] = {
        let valid = PipeMessage.demand(producer: 1, layers: 1).packet(sender: 9)
        var otherName = valid; otherName.body[4] = UInt8(ascii: "X")
        var otherSubtype = valid; otherSubtype.count = 6
        var short = valid; short.body.removeLast(4)
        var long = valid; long.body += [0, 0, 0, 0]
        var otherType = valid; otherType.packetType = .receiverReport
        return [("another name", otherName), ("an unknown subtype", otherSubtype), ("a body 4 bytes short", short),
                ("a body 4 bytes long", long), ("not APP", otherType), ("an empty body", RTCPRawPacket(packetType: .applicationDefined, count: 1, body: []))]
    }()

    @Test(arguments: notMessages.indices)
    func refusesWhatIsNotOne(_ index: Int) {
        #expect(PipeMessage(Self.notMessages[index].1) == nil, "\(Self.notMessages[index].0)")
    }
}
