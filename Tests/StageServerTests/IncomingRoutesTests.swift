@testable import StageServer
import StageSFU
import StageTransport
import StageWire
import Testing

/// `IncomingRoutes`: which producer, layer and stream an incoming RTP packet goes to, by SSRC,
/// payload type, rid (RFC 8852) and RTX (RFC 4588), and what an unroutable one is dropped for.
struct IncomingRoutesTests {
    static let ridExtension: UInt8 = 10
    static let repairedRIDExtension: UInt8 = 11
    static let vp8: UInt8 = 96, rtx: UInt8 = 97, opus: UInt8 = 111

    /// A publisher's routes: audio on signaled SSRC 1000, simulcast video (q, h, f) by rid with
    /// RTX by repaired rid, and a plain video on signaled SSRC 3000 with its RTX on 3001 (FID).
    struct Publisher {
        let audio = Producer(id: "p:0", kind: .audio) { _ in }
        let simulcast = Producer(id: "p:1", kind: .video, layers: ["q", "h", "f"]) { _ in }
        let plain = Producer(id: "p:2", kind: .video) { _ in }
        var routes = IncomingRoutes()

        init(repairedRID: Bool = true) {
            routes.addMedia(ssrc: 1000, to: audio)
            routes.addPayloadType(IncomingRoutesTests.opus, to: audio)
            routes.addSimulcast(simulcast, ridExtension: IncomingRoutesTests.ridExtension)
            routes.addRetransmission(payloadType: IncomingRoutesTests.rtx, repairing: simulcast, mediaPayloadType: IncomingRoutesTests.vp8,
                                     repairedRIDExtension: repairedRID ? IncomingRoutesTests.repairedRIDExtension : nil)
            routes.addMedia(ssrc: 3000, to: plain)
            routes.addPayloadType(98, to: plain)
            routes.addRetransmission(ssrc: 3001, repairing: 3000, of: plain, mediaPayloadType: 98)
        }

        /// Routes one packet, and tells where it went.
        mutating func route(_ packet: Packet) -> Destination {
            var bytes = packet.bytes
            return bytes.withUnsafeMutableBytes { buffer in
                guard let (header, _) = try? RTPHeader.parse(UnsafeRawBufferPointer(buffer)) else { return .malformed }
                switch routes.route(header, in: UnsafeRawBufferPointer(buffer)) {
                case .media(let producer, let layer, _): return .media(producer.id, layer: layer)
                case .repair(let producer, let layer, let ssrc, let payloadType):
                    return .repair(producer.id, layer: layer, originalSSRC: ssrc, originalPayloadType: payloadType)
                case .dropped(let reason): return .dropped(reason)
                }
            }
        }
    }

    /// An RTP packet: its SSRC, payload type and one-byte header extensions (id → text).
    struct Packet: Sendable, CustomTestStringConvertible {
        var ssrc: UInt32
        var payloadType: UInt8
        var extensions: [(id: UInt8, value: String)] = []
        var testDescription: String { "SSRC \(ssrc) PT \(payloadType) \(extensions.map { "\($0.id)=\($0.value)" })" }

        var bytes: [UInt8] {
            var block = RTPExtensionBlockBuilder()
            for element in extensions { try? block.set(id: element.id, value: Array(element.value.utf8)) }
            let header = RTPHeader(payloadType: payloadType, sequenceNumber: 7, timestamp: 90_000, ssrc: ssrc,
                                   extensionProfile: extensions.isEmpty ? nil : RTPExtensionForm.oneByte.profile,
                                   extensionLength: block.marshalSize)
            var out: [UInt8] = []
            header.serialize(into: &out, extensionBody: block.body())
            return out + [0x90, 0x80, 0x01, 0x02]
        }
    }

    enum Destination: Equatable, Sendable {
        case media(String, layer: Int)
        case repair(String, layer: Int, originalSSRC: UInt32, originalPayloadType: UInt8)
        case dropped(MediaDropReason)
        case malformed
    }

    static func rid(_ rid: String) -> (id: UInt8, value: String) { (ridExtension, rid) }
    static func repairedRID(_ rid: String) -> (id: UInt8, value: String) { (repairedRIDExtension, rid) }

    @Test("one packet, routed on its own", arguments: [
        (Packet(ssrc: 1000, payloadType: opus), Destination.media("p:0", layer: 0)),
        (Packet(ssrc: 1234, payloadType: opus), .media("p:0", layer: 0)),
        (Packet(ssrc: 3000, payloadType: 98), .media("p:2", layer: 0)),
        (Packet(ssrc: 3001, payloadType: 99), .repair("p:2", layer: 0, originalSSRC: 3000, originalPayloadType: 98)),
        (Packet(ssrc: 2001, payloadType: vp8, extensions: [rid("h")]), .media("p:1", layer: 1)),
        (Packet(ssrc: 2002, payloadType: vp8, extensions: [(3, "x"), rid("f")]), .media("p:1", layer: 2)),
        (Packet(ssrc: 2001, payloadType: vp8, extensions: [rid("x")]), .dropped(.unknownRID)),
        (Packet(ssrc: 2001, payloadType: vp8), .dropped(.unknownSSRC)),
        (Packet(ssrc: 2001, payloadType: vp8, extensions: [(3, "h")]), .dropped(.unknownSSRC)),
        (Packet(ssrc: 5555, payloadType: 120), .dropped(.unknownSSRC)),
        (Packet(ssrc: 2101, payloadType: rtx, extensions: [repairedRID("h")]), .dropped(.retransmissionNotForwarded)),
        (Packet(ssrc: 2101, payloadType: rtx, extensions: [repairedRID("x")]), .dropped(.retransmissionNotForwarded)),
        (Packet(ssrc: 2101, payloadType: rtx, extensions: [rid("h")]), .dropped(.retransmissionNotForwarded)),
    ])
    func single(packet: Packet, destination: Destination) {
        var publisher = Publisher()
        let routed = publisher.route(packet)
        #expect(routed == destination)
    }

    @Test("a layer's SSRC is learned from its rid: its later packets need none")
    func learnsSSRCFromRID() {
        var publisher = Publisher()
        let named = publisher.route(Packet(ssrc: 2001, payloadType: Self.vp8, extensions: [Self.rid("h")]))
        let unnamed = publisher.route(Packet(ssrc: 2001, payloadType: Self.vp8))
        let renamed = publisher.route(Packet(ssrc: 2001, payloadType: Self.vp8, extensions: [Self.rid("f")]))
        #expect(named == .media("p:1", layer: 1) && unnamed == named)
        #expect(renamed == named, "a learned SSRC keeps its layer")
        #expect(publisher.routes.route(ssrc: 2001)?.layer == 1)
    }

    @Test("an unknown rid or SSRC is not learned: a later packet naming a known rid is routed")
    func dropsAreNotLearned() {
        var publisher = Publisher()
        let unknown = publisher.route(Packet(ssrc: 2001, payloadType: Self.vp8, extensions: [Self.rid("x")]))
        #expect(unknown == .dropped(.unknownRID))
        #expect(publisher.routes.route(ssrc: 2001) == nil)
        let known = publisher.route(Packet(ssrc: 2001, payloadType: Self.vp8, extensions: [Self.rid("q")]))
        #expect(known == .media("p:1", layer: 0))
    }

    @Test("RTX named by its repaired rid repairs the SSRC its layer was seen on, once seen")
    func retransmissionBeforeItsMedia() {
        var publisher = Publisher()
        let repair = Packet(ssrc: 2101, payloadType: Self.rtx, extensions: [Self.repairedRID("h")])
        let early = publisher.route(repair)
        #expect(early == .dropped(.retransmissionNotForwarded), "its layer's SSRC is not known yet")
        var media = Packet(ssrc: 2001, payloadType: Self.vp8, extensions: [Self.rid("h")]).bytes
        media.withUnsafeMutableBytes { buffer in
            guard let (header, payload) = try? RTPHeader.parse(UnsafeRawBufferPointer(buffer)) else { return }
            publisher.simulcast.receive(buffer, fields: RTPFixedFields(header), layer: 1, payloadOffset: payload.lowerBound)
        }
        let expected = Destination.repair("p:1", layer: 1, originalSSRC: 2001, originalPayloadType: Self.vp8)
        let placed = publisher.route(repair)
        let later = publisher.route(Packet(ssrc: 2101, payloadType: Self.rtx))
        #expect(placed == expected)
        #expect(later == expected, "learned: later packets need no repaired rid")
    }

    @Test("RTX without the repaired-rid extension negotiated cannot be placed")
    func retransmissionWithoutRepairedRID() {
        var publisher = Publisher(repairedRID: false)
        let routed = publisher.route(Packet(ssrc: 2101, payloadType: Self.rtx, extensions: [Self.repairedRID("h")]))
        #expect(routed == .dropped(.retransmissionNotForwarded))
    }

    @Test("RTCP finds media and RTX routes by SSRC; receiver reports cover media streams only, by SSRC")
    func mediaStreams() {
        var publisher = Publisher()
        _ = publisher.route(Packet(ssrc: 2001, payloadType: Self.vp8, extensions: [Self.rid("h")]))
        _ = publisher.route(Packet(ssrc: 999, payloadType: Self.opus))
        let streams = publisher.routes.mediaStreams
        #expect(streams.map { $0.ssrc } == [999, 1000, 2001, 3000])
        #expect(streams.map { $0.producer.id } == ["p:0", "p:0", "p:1", "p:2"])
        #expect(streams.map { $0.layer } == [0, 0, 1, 0])
        if case .repair(let mediaSSRC, let payloadType)? = publisher.routes.route(ssrc: 3001)?.stream {
            #expect(mediaSSRC == 3000 && payloadType == 98)
        } else {
            Issue.record("3001 is the plain video's RTX")
        }
        #expect(publisher.routes.route(ssrc: 4242) == nil)
    }
}
