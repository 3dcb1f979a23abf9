import Foundation
import StageProtocol
import StageTransport

/// Media on top of the signaling state machine: one publish peer connection while the strategy
/// publishes streams that have a media source, one subscribe peer connection per publisher this
/// client subscribes to. Negotiation is JSEP over the signaling socket (`sdpOffer`/`sdpAnswer`).
extension Stage {
    /// The local streams whose device has a capture source: those carry media.
    var mediaStreams: [LocalStageStream] {
        localStreams.filter { $0.device.descriptor.source != nil }
    }

    /// Sends `publish` — preceded by the publish `sdpOffer` when the streams carry media, so the
    /// server has the media session before anyone hears of it. Without `requestId` only the
    /// media connection is made again (the streams are published already).
    func startPublishing(requestId: String?, streams: [StreamDescriptor]) {
        guard let channel else { return }
        let tracks = mediaStreams.filter { stream in streams.contains { $0.streamId == stream.streamId } }
        guard let mediaContext, !tracks.isEmpty else {
            if let requestId { channel.send(.publish(.init(requestId: requestId, streams: streams))) }
            return
        }
        let previous = mediaPublisher
        let publisher: MediaPublisher
        do {
            publisher = try MediaPublisher(tracks: tracks.map(MediaPublisher.Track.init), context: mediaContext, ice: ice.agentConfiguration)
        } catch {
            reportError(StageError(code: .connectionFailed, message: "publish media: \(error)"))
            if let requestId { channel.send(.publish(.init(requestId: requestId, streams: streams))) }
            return
        }
        mediaPublisher = publisher
        publisher.connection.onFailure = { [weak self, weak publisher] reason in
            Task { @MainActor in
                guard let self, let publisher, self.mediaPublisher === publisher else { return }
                self.mediaConnectionLost(reason)
            }
        }
        Task {
            // The connection this one replaces closes only once this one is up (or failed): the
            // server then swaps sessions without an unpublish that others would see as a leave.
            defer { if let previous { Task { await previous.close() } } }
            do {
                let offer = try await publisher.connection.prepareOffer()
                guard self.mediaPublisher === publisher, let channel = self.channel else { return await publisher.close() }
                let answer = self.negotiate(.publish, participantId: nil, offer: offer, on: channel)
                if let requestId { channel.send(.publish(.init(requestId: requestId, streams: streams))) }
                try await publisher.connect(answer: try await answer.value())
                guard self.mediaPublisher === publisher else { return await publisher.close() }
                for track in tracks { track.statsProvider = { [weak publisher] in await publisher?.stats(streamId: track.streamId) ?? [] } }
                self.mediaRecovered()
            } catch {
                guard self.mediaPublisher === publisher else { return }
                self.reportError(StageError(code: .connectionFailed, message: "publish media: \(error)"))
                self.retryPublishing(after: publisher)
            }
        }
    }

    /// A publish connection could not be made (the path may still be down): try again in a
    /// second while the strategy still publishes and nothing newer replaced it.
    private func retryPublishing(after failed: MediaPublisher) {
        Task { @MainActor [weak self] in
            try? await Task.sleep(for: .seconds(1))
            guard let self, self.mediaPublisher === failed, let published = self.applied.published else { return }
            self.startPublishing(requestId: nil, streams: published)
        }
    }

    func stopPublishingMedia() {
        guard let publisher = mediaPublisher else { return }
        mediaPublisher = nil
        for stream in localStreams { stream.statsProvider = nil }
        Task { await publisher.close() }
    }

    /// Opens (or reopens, when the subscribe type changed) the media of a subscribed publisher.
    func startReceiving(from publisherId: String, type: SubscribeType) {
        guard let mediaContext, let channel, roster[publisherId] != nil else { return }
        let wantsVideo = type == .audioVideo
        if let existing = mediaSubscribers[publisherId], existing.receivesVideo == wantsVideo { return }
        stopReceiving(from: publisherId)
        let streams = roster.stageStreams(of: publisherId, for: type)
        guard !streams.isEmpty else { return }
        let subscriber: MediaSubscriber
        do {
            subscriber = try MediaSubscriber(publisherId: publisherId, streams: streams.map(MediaSubscriber.Track.init), context: mediaContext,
                                         ice: ice.agentConfiguration)
        } catch {
            return reportError(StageError(code: .connectionFailed, message: "subscribe media from \(publisherId): \(error)"))
        }
        mediaSubscribers[publisherId] = subscriber
        subscriber.connection.onFailure = { [weak self, weak subscriber] reason in
            Task { @MainActor in
                guard let self, let subscriber, self.mediaSubscribers[publisherId] === subscriber else { return }
                self.mediaConnectionLost(reason)
                self.mediaSubscribers[publisherId] = nil
                Task { await subscriber.close() }
                self.resumeReceiving(from: publisherId)
            }
        }
        Task {
            do {
                let offer = try await subscriber.connection.prepareOffer()
                guard self.mediaSubscribers[publisherId] === subscriber else { return await subscriber.close() }
                let answer = try await self.negotiate(.subscribe, participantId: publisherId, offer: offer, on: channel).value()
                try await subscriber.connect(answer: answer)
                guard self.mediaSubscribers[publisherId] === subscriber else { return await subscriber.close() }
                for stream in streams { stream.statsProvider = { [weak subscriber] in await subscriber?.stats(streamId: stream.streamId) ?? [] } }
                self.mediaRecovered()
            } catch let error as StageError where error.code == .server(.publisherNotFound) {
                // The publisher announced streams without media (a signaling-only client): nothing to receive.
                if self.mediaSubscribers[publisherId] === subscriber { self.mediaSubscribers[publisherId] = nil }
                await subscriber.close()
            } catch {
                guard self.mediaSubscribers[publisherId] === subscriber else { return }
                self.mediaSubscribers[publisherId] = nil
                await subscriber.close()
                self.reportError(StageError(code: .connectionFailed, message: "subscribe media from \(publisherId): \(error)"))
                // The path may still be down: try again in a second while the subscription stands.
                try? await Task.sleep(for: .seconds(1))
                if self.mediaSubscribers[publisherId] == nil { self.resumeReceiving(from: publisherId) }
            }
        }
    }

    /// Opens the media of a publisher again while the strategy still subscribes to it and the server agreed.
    private func resumeReceiving(from publisherId: String) {
        guard let type = applied.subscriptions[publisherId], roster[publisherId]?.info.subscribeState == .subscribed else { return }
        startReceiving(from: publisherId, type: type)
    }

    func stopReceiving(from publisherId: String) {
        guard let subscriber = mediaSubscribers.removeValue(forKey: publisherId) else { return }
        for stream in roster[publisherId].map({ Array($0.stageStreams.values) }) ?? [] { stream.statsProvider = nil }
        Task { await subscriber.close() }
    }

    func stopAllMedia() {
        stopPublishingMedia()
        for id in Array(mediaSubscribers.keys) { stopReceiving(from: id) }
        for waiter in requests.removeAnswerWaiters() { waiter.resolve(.failure(StageError(code: .notJoined, message: "the stage left"))) }
    }

    /// Sends an `sdpOffer`; the returned answer resolves with the `sdpAnswer` (or the refusal,
    /// thrown), or times out after 10 s.
    func negotiate(_ purpose: ClientMessage.SdpOffer.Purpose, participantId: String?, offer: String,
                   on channel: SignalingChannel) -> PendingAnswer {
        let answer = PendingAnswer()
        let requestId = requests.register(answerWaiter: answer)
        channel.send(.sdpOffer(.init(requestId: requestId, purpose: purpose, participantId: participantId, sdp: offer)))
        Task { @MainActor [weak self] in
            try? await Task.sleep(for: .seconds(10))
            self?.requests.answerWaiter(for: requestId)?.resolve(.failure(StageError(code: .timedOut, message: "sdpOffer: no answer in 10 s")))
        }
        return answer
    }

    /// A media connection stopped hearing from the server: say so, then reconnect it.
    func mediaConnectionLost(_ reason: String) {
        mediaReconnecting = true
        setConnectionState(.connecting, error: StageError(code: .connectionFailed, message: "media: \(reason); reconnecting"))
        if let publisher = mediaPublisher, publisher.connection.hasFailed, let published = applied.published {
            startPublishing(requestId: nil, streams: published)
        }
    }

    func mediaRecovered() {
        guard mediaReconnecting, channel != nil, mediaPublisher?.connection.hasFailed != true,
              !mediaSubscribers.values.contains(where: \.connection.hasFailed) else { return }
        mediaReconnecting = false
        setConnectionState(.connected, error: nil)
    }
}
