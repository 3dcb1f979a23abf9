import StageSFU
import StageTransport
import StageWire

/// Which producer, simulcast layer and stream each incoming RTP packet of a publisher belongs
/// to. An SSRC the offer signaled (`a=ssrc`, RFC 5576) is routed from the start; another is
/// learned from its first packet: a simulcast layer by its RtpStreamId header extension, an RTX
/// stream by its payload type and RepairedRtpStreamId (RFC 8852 §3), a plain track by its
/// payload type. RTX (RFC 4588) names the media it repairs: its signaled media SSRC
/// (`a=ssrc-group:FID`), or the SSRC its layer was seen on.
///
/// On the per-packet path: a known SSRC costs one dictionary lookup, and the result is a small
/// enum of references; only a new SSRC changes the table.
struct IncomingRoutes {
    /// What an incoming RTP packet is, and where it goes.
    enum Incoming {
        /// Media of `producer`'s simulcast `layer` (0 for a plain track), counted in `stream`.
        case media(producer: Producer, layer: Int, stream: IncomingStream)
        /// RTX repairing `producer`'s `layer`: restored, it carries `originalSSRC` and
        /// `originalPayloadType` (RFC 4588 §4).
        case repair(producer: Producer, layer: Int, originalSSRC: UInt32, originalPayloadType: UInt8)
        case dropped(MediaDropReason)
    }

    /// Where one incoming SSRC's packets go.
    struct Route {
        let producer: Producer
        let layer: Int
        let stream: Stream

        enum Stream {
            /// A media stream, with its reception statistics.
            case media(IncomingStream)
            /// An RTX stream: the media SSRC, when signaled (else the layer's, once seen), and
            /// the media payload type (`apt`).
            case repair(mediaSSRC: UInt32?, payloadType: UInt8)
        }
    }

    private var bySSRC: [UInt32: Route] = [:]
    /// A plain track's payload type → its producer, for senders that signal no SSRC.
    private var byPayloadType: [UInt8: Producer] = [:]
    /// Simulcast producers, in offer order, with their RtpStreamId extension id.
    private var simulcast: [(producer: Producer, ridExtension: UInt8)] = []
    /// RTX payload type → the producer it repairs, its media payload type (`apt`) and the
    /// RepairedRtpStreamId extension id that names the layer, if negotiated.
    private var retransmissionByPayloadType: [UInt8: (producer: Producer, payloadType: UInt8, repairedRIDExtension: UInt8?)] = [:]

    /// Routes `ssrc`, signaled in the offer, to `producer` as media.
    mutating func addMedia(ssrc: UInt32, to producer: Producer) {
        bySSRC[ssrc] = Route(producer: producer, layer: 0, stream: .media(IncomingStream(ssrc: ssrc, kind: producer.kind)))
    }

    /// Routes unsignaled SSRCs of `payloadType` to `producer`, a plain track.
    mutating func addPayloadType(_ payloadType: UInt8, to producer: Producer) {
        byPayloadType[payloadType] = producer
    }

    /// Routes unsignaled SSRCs whose RtpStreamId (extension `ridExtension`) names one of
    /// `producer`'s layers to that layer.
    mutating func addSimulcast(_ producer: Producer, ridExtension: UInt8) {
        simulcast.append((producer, ridExtension))
    }

    /// Routes unsignaled SSRCs of RTX `payloadType` to `producer`, by the layer their
    /// RepairedRtpStreamId (extension `repairedRIDExtension`) names.
    mutating func addRetransmission(payloadType: UInt8, repairing producer: Producer, mediaPayloadType: UInt8,
                                    repairedRIDExtension: UInt8?) {
        retransmissionByPayloadType[payloadType] = (producer, mediaPayloadType, repairedRIDExtension)
    }

    /// Routes RTX `ssrc`, signaled in the offer as repairing `mediaSSRC`, to `producer`.
    mutating func addRetransmission(ssrc: UInt32, repairing mediaSSRC: UInt32, of producer: Producer, mediaPayloadType: UInt8) {
        bySSRC[ssrc] = Route(producer: producer, layer: 0, stream: .repair(mediaSSRC: mediaSSRC, payloadType: mediaPayloadType))
    }

    /// Where the packet with `header` in `packet` goes; a new SSRC's route is learned from it.
    mutating func route(_ header: RTPHeader, in packet: UnsafeRawBufferPointer) -> Incoming {
        let route: Route
        if let known = bySSRC[header.ssrc] {
            route = known
        } else {
            switch learnRoute(header, in: packet) {
            case .learned(let learned):
                bySSRC[header.ssrc] = learned
                route = learned
            case .dropped(let reason):
                return .dropped(reason)
            }
        }
        switch route.stream {
        case .media(let stream):
            return .media(producer: route.producer, layer: route.layer, stream: stream)
        case .repair(let mediaSSRC, let payloadType):
            guard let originalSSRC = mediaSSRC ?? route.producer.ssrc(ofLayer: route.layer) else {
                return .dropped(.retransmissionNotForwarded)
            }
            return .repair(producer: route.producer, layer: route.layer, originalSSRC: originalSSRC, originalPayloadType: payloadType)
        }
    }

    /// The route of `ssrc`, signaled or learned (nil: none yet), for its RTCP.
    func route(ssrc: UInt32) -> Route? { bySSRC[ssrc] }

    /// The media streams (no RTX), by SSRC: what receiver reports cover.
    var mediaStreams: [(ssrc: UInt32, producer: Producer, layer: Int, stream: IncomingStream)] {
        bySSRC.compactMap { ssrc, route in
            guard case .media(let stream) = route.stream else { return nil }
            return (ssrc, route.producer, route.layer, stream)
        }.sorted { $0.ssrc < $1.ssrc }
    }

    private enum Learned {
        case learned(Route)
        case dropped(MediaDropReason)
    }

    /// The route of an SSRC the offer did not list, from its first packet.
    private func learnRoute(_ header: RTPHeader, in packet: UnsafeRawBufferPointer) -> Learned {
        if let rtx = retransmissionByPayloadType[header.payloadType] {
            guard let id = rtx.repairedRIDExtension, let range = header.extensionValueRange(id: id, in: packet),
                  let layer = rtx.producer.layers.firstIndex(of: String(decoding: packet[range], as: UTF8.self)) else {
                return .dropped(.retransmissionNotForwarded)
            }
            return .learned(Route(producer: rtx.producer, layer: layer, stream: .repair(mediaSSRC: nil, payloadType: rtx.payloadType)))
        }
        for (producer, ridExtension) in simulcast {
            guard let range = header.extensionValueRange(id: ridExtension, in: packet) else { continue }
            guard let layer = producer.layers.firstIndex(of: String(decoding: packet[range], as: UTF8.self)) else {
                return .dropped(.unknownRID)
            }
            return .learned(Route(producer: producer, layer: layer, stream: .media(IncomingStream(ssrc: header.ssrc, kind: .video))))
        }
        guard let producer = byPayloadType[header.payloadType] else { return .dropped(.unknownSSRC) }
        return .learned(Route(producer: producer, layer: 0, stream: .media(IncomingStream(ssrc: header.ssrc, kind: producer.kind))))
    }
}
