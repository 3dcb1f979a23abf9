import NIOCore
import StageSFU
import StageTransport
import StageWire

/// The far router's end of a pipe (mediasoup's PipeProducer side): a copy of each piped producer
/// — same id, kind and simulcast layers — fed by the pipe, that its subscribers consume as they
/// would a publisher's. What they need goes back: each copy NACKs what the pipe lost (RFC 4585
/// §6.2.1) and asks for keyframes (PLI, RFC 4585 §6.3.1) as a publisher connection does, and
/// once a second tells the origin which layers its consumers use (`PipeMessage.demand`); the
/// layers the origin paused stay on offer to them (`PipeMessage.layerState`); the origin's
/// echo requests are answered at once. Lives on the far router's event loop.
final class PipeFarEnd: PipeTransportDelegate, @unchecked Sendable {
    let transport: PipeTransport
    /// Copies by their index on the pipe.
    private(set) var copies: [UInt32: Copy] = [:]
    /// SSRC → (index, layer), from the origin's announcements.
    private var sources: [UInt32: (index: UInt32, layer: Int)] = [:]
    private var feedbackTask: RepeatedTask?
    private var lossCheck: Scheduled<Void>?
    static let senderSSRC: UInt32 = 3

    /// One piped producer's copy, and the publisher's stream it carries.
    struct Copy {
        var producer: Producer
        var publisherId: String
        var streamId: String
    }

    init(transport: PipeTransport) {
        self.transport = transport
        transport.delegate = self
        let weak = NIOLoopBound(WeakEnd(end: self), eventLoop: transport.eventLoop)
        feedbackTask = transport.eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(200), delay: .seconds(1)) { _ in
            weak.value.end?.everySecond()
        }
    }

    private struct WeakEnd { weak var end: PipeFarEnd? }

    /// Makes the copy of a piped producer of `publisherId`.
    func add(_ description: PipeOriginEnd.Description, publisherId: String) {
        guard copies[description.index] == nil else { return }
        let transport = self.transport
        let producer = Producer(id: description.id, kind: description.kind, layers: description.layers, observer: MediaMetrics.shared) { ssrc in
            RTCPFeedback.pictureLossIndication(sender: Self.senderSSRC, media: ssrc).withUnsafeBytes { _ = transport.sendRTCP($0) }
        }
        if description.kind == .video {
            producer.requestRetransmission = { ssrc, lost in
                RTCPFeedback.genericNACK(sender: Self.senderSSRC, media: ssrc, lost: lost).withUnsafeBytes { _ = transport.sendRTCP($0) }
            }
            producer.onUpstreamLoss = { [weak self] in self?.scheduleLossCheck() }
        }
        copies[description.index] = Copy(producer: producer, publisherId: publisherId, streamId: description.streamId)
    }

    /// The copies of `publisherId`'s producers.
    func producers(of publisherId: String) -> [Producer] {
        copies.values.filter { $0.publisherId == publisherId }.map(\.producer)
    }

    /// The origin's producer closed: its copy closes, and so do its consumers' subscribers.
    func remove(_ index: UInt32) {
        guard let copy = copies.removeValue(forKey: index) else { return }
        sources = sources.filter { $0.value.index != index }
        copy.producer.close()
    }

    /// Mute, as the publisher said for that stream.
    func setMuted(publisherId: String, streamId: String, muted: Bool) {
        for copy in copies.values where copy.publisherId == publisherId && copy.streamId == streamId { copy.producer.isMuted = muted }
    }

    /// Closes every copy (on the pipe's loop) and the pipe: its router is gone.
    func close() async {
        try? await transport.eventLoop.submit { [self] in
            feedbackTask?.cancel()
            lossCheck?.cancel()
            for index in Array(copies.keys) { remove(index) }
        }.get()
        await transport.close()
    }

    // MARK: From the origin

    func pipe(_ pipe: PipeTransport, didReceiveRTP packet: UnsafeMutableRawBufferPointer) {
        guard let (header, payload) = try? RTPHeader.parse(UnsafeRawBufferPointer(packet)) else { return MediaDropReason.malformedRTP.count() }
        guard let source = sources[header.ssrc], let copy = copies[source.index] else { return MediaDropReason.unknownSSRC.count() }
        copy.producer.receive(packet, fields: RTPFixedFields(header), layer: source.layer, payloadOffset: payload.lowerBound)
    }

    func pipe(_ pipe: PipeTransport, didReceiveRTCP packet: UnsafeMutableRawBufferPointer) {
        for rtcp in RTCPFeedback.packets(in: UnsafeRawBufferPointer(packet)) {
            switch rtcp {
            case .senderReport(let report):
                guard let source = sources[report.ssrc], let copy = copies[source.index] else { continue }
                copy.producer.senderReport(ssrc: report.ssrc, ntpTime: report.ntpTime, rtpTime: report.rtpTime)
            case .raw(let raw):
                switch PipeMessage(raw) {
                case .layerSSRC(let index, let layer, let ssrc)? where copies[index] != nil:
                    let known = sources[ssrc]
                    sources[ssrc] = (index, Int(layer))
                    // A layer first heard of now may have lost its first packets: ask for its keyframe.
                    if known == nil, let producer = copies[index]?.producer, producer.kind == .video, !producer.ssrcs.isEmpty {
                        producer.keyframeNeeded(reason: .newConsumer)
                    }
                case .layerState(let index, let layer, let paused, let peak)?:
                    copies[index]?.producer.setOriginLayer(Int(layer), paused: paused, peakBitrate: Int(peak))
                case .echoRequest(let token)?:
                    var bytes: [UInt8] = []
                    PipeMessage.echoReply(token: token).serialize(sender: Self.senderSSRC, into: &bytes)
                    bytes.withUnsafeBytes { _ = transport.sendRTCP($0) }
                default: break
                }
            default: break
            }
        }
    }

    // MARK: Back to the origin

    /// Each copy's layer rates (for its subscribers' allocators), and the layers its consumers
    /// use, for the origin's dynacast.
    private func everySecond() {
        let now = PacketTime.now
        var bytes: [UInt8] = []
        for (index, copy) in copies {
            copy.producer.measureLayerRates(now: now)
            guard copy.producer.layers.count > 1 else { continue }
            let bits = copy.producer.layersInUse().enumerated().reduce(UInt32(0)) { $1.element ? $0 | (1 << UInt32($1.offset)) : $0 }
            PipeMessage.demand(producer: index, layers: bits).serialize(sender: Self.senderSSRC, into: &bytes)
        }
        guard !bytes.isEmpty else { return }
        bytes.withUnsafeBytes { _ = transport.sendRTCP($0) }
    }

    /// A copy found a gap: check every `Producer.lossCheckInterval` until all are repaired or given up.
    private func scheduleLossCheck() {
        guard lossCheck == nil else { return }
        let weak = NIOLoopBound(WeakEnd(end: self), eventLoop: transport.eventLoop)
        lossCheck = transport.eventLoop.scheduleTask(in: TimeAmount(Producer.lossCheckInterval)) {
            guard let end = weak.value.end else { return }
            end.lossCheck = nil
            let now = PacketTime.now
            let repairing = end.copies.values.map(\.producer).filter(\.isRepairingUpstreamLoss)
            for producer in repairing { producer.checkUpstreamLoss(now: now) }
            if end.copies.values.contains(where: { $0.producer.isRepairingUpstreamLoss }) { end.scheduleLossCheck() }
        }
    }
}
