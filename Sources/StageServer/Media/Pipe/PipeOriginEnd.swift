import NIOCore
import StageSFU
import StageTransport
import StageWire

/// The origin router's end of a pipe to another router (mediasoup's PipeConsumer side): every
/// packet of each piped producer — every simulcast and temporal layer, repaired packets as
/// their original — goes into the pipe with the publisher's SSRC and sequence number, and what
/// the far side asks for comes back: NACKs answered from the producer's cache, PLIs to the
/// publisher for that layer, and the layers its subscribers use (`PipeMessage.demand`) into the
/// producer's dynacast demand. Each layer's SSRC is announced (`PipeMessage.layerSSRC`) before
/// its first packet and again every second, and so is each simulcast layer's dynacast state
/// (`PipeMessage.layerState`); an echo every second measures the pipe's delay (`PipeDelay`).
/// Lives on the origin router's event loop.
final class PipeOriginEnd: ProducerTap, PipeTransportDelegate, @unchecked Sendable {
    let transport: PipeTransport
    /// Piped producers by their index on the pipe.
    private var producers: [UInt32: Producer] = [:]
    private var indices: [ObjectIdentifier: UInt32] = [:]
    private var nextIndex: UInt32 = 0
    /// What each (producer index, layer) was last announced to arrive on.
    private var announced: [UInt32: [Int: UInt32]] = [:]
    /// SSRC → (producer index, layer), for the far side's feedback.
    private var sources: [UInt32: (index: UInt32, layer: Int)] = [:]
    private var announceTask: RepeatedTask?
    /// A piped producer closed (its publisher left): the far end must close its copy.
    var onProducerClosed: ((UInt32) -> Void)?
    /// Sequence numbers the far end asked for again, and of those the ones resent from a cache.
    private(set) var nacked = 0, resent = 0
    /// Keyframe requests from the far end (passed to the publisher, rate limited there).
    private(set) var keyframeRequests = 0
    /// What the pipe adds to a packet's way, from its echoes.
    private(set) var delay = PipeDelay()
    static let senderSSRC: UInt32 = 2

    /// What the far end needs to make its copy of a piped producer.
    struct Description: Sendable {
        var index: UInt32
        var id: String
        var kind: MediaKind
        var layers: [String]
        var streamId: String
    }

    init(transport: PipeTransport) {
        self.transport = transport
        transport.delegate = self
        let weak = NIOLoopBound(WeakEnd(end: self), eventLoop: transport.eventLoop)
        announceTask = transport.eventLoop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { _ in
            weak.value.end?.announceAll()
            weak.value.end?.requestEcho()
        }
    }

    private struct WeakEnd { weak var end: PipeOriginEnd? }

    /// The index `producer` has (or gets) on the pipe; it is not tapped before `start`.
    func describe(_ producer: Producer, streamId: String) -> Description {
        let index = indices[ObjectIdentifier(producer)] ?? {
            let index = nextIndex
            nextIndex &+= 1
            indices[ObjectIdentifier(producer)] = index
            producers[index] = producer
            return index
        }()
        return Description(index: index, id: producer.id, kind: producer.kind, layers: producer.layers, streamId: streamId)
    }

    /// Starts sending `index`'s packets (once the far end has its copy).
    func start(_ index: UInt32) {
        producers[index]?.attach(tap: self)
    }

    /// Whether `producer` is piped already.
    func pipes(_ producer: Producer) -> Bool { indices[ObjectIdentifier(producer)] != nil }

    /// Stops every tap (on the pipe's loop) and the pipe: its far router is gone.
    func close() async {
        try? await transport.eventLoop.submit { [self] in
            announceTask?.cancel()
            for producer in producers.values { producer.detach(tap: self) }
            producers.removeAll()
            indices.removeAll()
        }.get()
        await transport.close()
    }

    // MARK: ProducerTap

    func producer(_ producer: Producer, forwards packet: UnsafeRawBufferPointer, fields: RTPFixedFields, layer: Int) {
        guard let index = indices[ObjectIdentifier(producer)] else { return }
        if announced[index]?[layer] != fields.ssrc { announce(index: index, layer: layer, ssrc: fields.ssrc) }
        transport.sendRTP(packet)
    }

    func producer(_ producer: Producer, senderReport ssrc: UInt32, ntpTime: UInt64, rtpTime: UInt32) {
        guard indices[ObjectIdentifier(producer)] != nil else { return }
        RTCPFeedback.senderReport(ssrc: ssrc, ntpTime: ntpTime, rtpTime: rtpTime, packets: 0, octets: 0)
            .withUnsafeBytes { _ = transport.sendRTCP($0) }
    }

    func producer(_ producer: Producer, handedOverTo successor: Producer) {
        guard let index = indices.removeValue(forKey: ObjectIdentifier(producer)) else { return }
        indices[ObjectIdentifier(successor)] = index
        producers[index] = successor
        // The successor's SSRCs are announced with their first packets.
        announced[index] = nil
    }

    func producerClosed(_ producer: Producer) {
        guard let index = indices.removeValue(forKey: ObjectIdentifier(producer)) else { return }
        producers[index] = nil
        announced[index] = nil
        sources = sources.filter { $0.value.index != index }
        onProducerClosed?(index)
    }

    // MARK: Feedback from the far end

    func pipe(_ pipe: PipeTransport, didReceiveRTP packet: UnsafeMutableRawBufferPointer) {
        MediaDropReason.unknownSSRC.count()
    }

    func pipe(_ pipe: PipeTransport, didReceiveRTCP packet: UnsafeMutableRawBufferPointer) {
        let now = PacketTime.now
        for rtcp in RTCPFeedback.packets(in: UnsafeRawBufferPointer(packet)) {
            switch rtcp {
            case .pictureLossIndication(let pli): keyframe(ssrc: pli.mediaSSRC)
            case .fullIntraRequest(let fir): for entry in fir.entries { keyframe(ssrc: entry.ssrc) }
            case .genericNACK(let nack): resend(ssrc: nack.mediaSSRC, sequences: nack.lostSequenceNumbers, now: now)
            case .raw(let raw):
                switch PipeMessage(raw) {
                case .demand(let index, let bits)?:
                    guard let producer = producers[index] else { continue }
                    producer.setDemand(producer.layers.indices.map { bits & (1 << UInt32($0)) != 0 }, behind: self)
                case .echoReply(let token)?:
                    delay.echoed(sentAt: token, now: NIODeadline.now().uptimeNanoseconds)
                default: break
                }
            default: break
            }
        }
    }

    private func keyframe(ssrc: UInt32) {
        guard let source = sources[ssrc], let producer = producers[source.index] else { return MediaDropReason.unknownSSRC.count() }
        MediaMetrics.shared.plisReceived.increment()
        keyframeRequests += 1
        if producer.layers.isEmpty {
            producer.keyframeNeeded(reason: .subscriberRequest)
        } else {
            producer.keyframeNeeded(layer: source.layer, reason: .subscriberRequest)
        }
    }

    private func resend(ssrc: UInt32, sequences: [UInt16], now: PacketTime) {
        guard let source = sources[ssrc], let producer = producers[source.index] else { return MediaDropReason.unknownSSRC.count() }
        var answered = 0
        for sequence in sequences where producer.withCachedPacket(ssrc: ssrc, sequence: sequence, now: now, { transport.sendRTP($0) }) {
            answered += 1
        }
        MediaMetrics.shared.retransmitted(requested: sequences.count, answered: answered)
        nacked += sequences.count
        resent += answered
    }

    private func announce(index: UInt32, layer: Int, ssrc: UInt32) {
        announced[index, default: [:]][layer] = ssrc
        sources[ssrc] = (index, layer)
        var bytes: [UInt8] = []
        PipeMessage.layerSSRC(producer: index, layer: UInt16(clamping: layer), ssrc: ssrc).serialize(sender: Self.senderSSRC, into: &bytes)
        bytes.withUnsafeBytes { _ = transport.sendRTCP($0) }
    }

    /// Every second: each layer's SSRC again (an announcement lost on the way would otherwise
    /// leave that layer unrouted at the far end), and each simulcast layer's dynacast state (a
    /// layer paused here is offered there at its peak), `announcementsPerPacket` to a compound
    /// packet.
    private func announceAll() {
        let ssrcs = announced.flatMap { index, layers in
            layers.map { PipeMessage.layerSSRC(producer: index, layer: UInt16(clamping: $0.key), ssrc: $0.value) }
        }
        let states = producers.flatMap { index, producer in
            zip(producer.pausedByPublisher, producer.recentPeakBitrates).enumerated().map { layer, state in
                PipeMessage.layerState(producer: index, layer: UInt16(clamping: layer), paused: state.0,
                                       peakBitsPerSecond: UInt32(clamping: state.1))
            }
        }
        let messages = ssrcs + states
        for start in stride(from: 0, to: messages.count, by: Self.announcementsPerPacket) {
            var bytes: [UInt8] = []
            for message in messages[start..<min(start + Self.announcementsPerPacket, messages.count)] {
                message.serialize(sender: Self.senderSSRC, into: &bytes)
            }
            bytes.withUnsafeBytes { _ = transport.sendRTCP($0) }
        }
    }

    /// Asks the far end for an echo of the clock now (`PipeMessage.echoRequest`).
    private func requestEcho() {
        var bytes: [UInt8] = []
        PipeMessage.echoRequest(token: NIODeadline.now().uptimeNanoseconds).serialize(sender: Self.senderSSRC, into: &bytes)
        bytes.withUnsafeBytes { _ = transport.sendRTCP($0) }
    }

    /// 24 bytes each: a compound of 40 stays within a 1200-byte datagram.
    static let announcementsPerPacket = 40
}
