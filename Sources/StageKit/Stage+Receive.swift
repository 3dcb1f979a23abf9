import Foundation
import StageProtocol

/// Handling what the server says.
extension Stage {
    func receive(_ event: SignalingChannel.Event) {
        switch event {
        case .closed(let error):
            guard channel != nil else { return }
            rejoin.socketClosed(wasJoined: connectionState == .connected && joinWaiter == nil, leaving: leaving)
            tearDown(error: error ?? StageError(code: .connectionFailed, message: "the signaling socket closed"))
            if isReconnecting, rejoinTask == nil { scheduleRejoin() }
        case .message(let message):
            receive(message)
        }
    }

    func receive(_ message: ServerMessage) {
        switch message {
        case .joined(let joined): didJoin(joined)
        case .participantJoined(let publisher):
            addRemote(publisher)
            applyStrategy(forNewPublisher: publisher.participant.participantId)
        case .participantLeft(let left): removeRemote(left.participantId)
        case .streamsChanged(let change): remoteStreamsChanged(change)
        case .muteChanged(let change): remoteMuteChanged(change)
        case .publishState(let state): localPublishStateChanged(state)
        case .subscribeState(let state): subscribeStateChanged(state)
        case .error(let error): refused(error)
        case .disconnect(let disconnect):
            tearDown(error: StageError(code: .disconnected(disconnect.reason), message: disconnect.message))
        case .pong(let pong): requests.pongWaiter(for: pong.nonce)?.resume(returning: true)
        case .sdpAnswer(let answer): requests.answerWaiter(for: answer.requestId)?.resolve(.success(answer.sdp))
        case .publishLayers(let layers): mediaPublisher?.setActiveLayers(streamId: layers.streamId, rids: Set(layers.rids))
        case .downlinkEstimate(let estimate): mediaSubscribers[estimate.participantId]?.connection.availableIncomingBitrate = estimate.bitsPerSecond
        }
    }

    private func didJoin(_ joined: ServerMessage.Joined) {
        guard let waiter = joinWaiter else { return }
        joinWaiter = nil
        local = ParticipantInfo(joined.participant, isLocal: true)
        setConnectionState(.connected, error: nil)
        let info = local
        render { $0.stage(self, participantDidJoin: info) }
        for publisher in joined.publishers { addRemote(publisher) }
        startPinging(every: joined.pingIntervalSeconds)
        rejoin.stop()
        rejoinTask = nil
        waiter.resume()
        refreshStrategy()
    }

    private func startPinging(every seconds: Int) {
        pingTask = Task { [weak self] in
            var nonce = 0
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(max(1, seconds)))
                nonce += 1
                self?.channel?.send(.ping(.init(nonce: nonce)))
            }
        }
    }

    func addRemote(_ publisher: PublisherDescriptor) {
        guard let info = roster.add(publisher) else { return }
        render { $0.stage(self, participantDidJoin: info) }
        render { $0.stage(self, participant: info, didChange: ParticipantPublishState.published) }
    }

    /// The publisher stopped publishing or left: its streams go, then the participant.
    func removeRemote(_ id: String) {
        guard var left = roster[id]?.info else { return }
        stopReceiving(from: id)
        if let change = roster.receive([], from: id), !change.removed.isEmpty {
            render { $0.stage(self, participant: change.participant, didRemove: change.removed) }
        }
        setSubscribeState(id, .notSubscribed)
        applied.subscriptions[id] = nil
        // As last seen, should a renderer have removed it meanwhile (by leaving the stage).
        left.publishState = .notPublished
        let info = roster.remove(id) ?? left
        render { $0.stage(self, participant: info, didChange: ParticipantPublishState.notPublished) }
        render { $0.stage(self, participantDidLeave: info) }
    }

    private func remoteStreamsChanged(_ change: ServerMessage.StreamsChanged) {
        guard let remote = roster.setStreams(change.streams, of: change.participantId) else { return }
        guard let type = applied.subscriptions[change.participantId], remote.info.subscribeState == .subscribed else { return }
        updateReceived(change.participantId, to: change.streams.filter { type.includes($0.kind) })
        // Other streams: receive them on a new connection.
        stopReceiving(from: change.participantId)
        startReceiving(from: change.participantId, type: type)
    }

    private func remoteMuteChanged(_ change: ServerMessage.StreamsChanged) {
        guard let (info, changed) = roster.setMuted(change.streams, of: change.participantId) else { return }
        render { $0.stage(self, participant: info, didChangeMutedStreams: changed) }
    }

    /// Makes the received streams of a publisher `streams`, reporting removals, then additions.
    func updateReceived(_ id: String, to streams: [StreamDescriptor]) {
        guard let change = roster.receive(streams, from: id) else { return }
        let info = change.participant
        if !change.removed.isEmpty { render { $0.stage(self, participant: info, didRemove: change.removed) } }
        if !change.added.isEmpty { render { $0.stage(self, participant: info, didAdd: change.added) } }
    }

    private func subscribeStateChanged(_ state: ServerMessage.SubscribeState) {
        if let requestId = state.requestId { _ = requests.reply(to: requestId) }
        let id = state.participantId
        guard roster[id] != nil else { return }
        switch state.state {
        case .subscribed:
            setSubscribeState(id, .subscribed)
            updateReceived(id, to: state.streams)
            startReceiving(from: id, type: state.subscribeType)
        case .notSubscribed:
            stopReceiving(from: id)
            updateReceived(id, to: [])
            setSubscribeState(id, .notSubscribed)
        }
    }

    private func localPublishStateChanged(_ state: ServerMessage.PublishState) {
        if let requestId = state.requestId { _ = requests.reply(to: requestId) }
        let before = confirmedLocal
        confirmedLocal = state.state == .published ? state.streams : []
        let beforeIds = before.map(\.streamId), afterIds = confirmedLocal.map(\.streamId)
        let removed = localStreams.filter { beforeIds.contains($0.streamId) && !afterIds.contains($0.streamId) }
        let added = localStreams.filter { afterIds.contains($0.streamId) && !beforeIds.contains($0.streamId) }
        let muted = localStreams.filter { stream in
            guard let old = before.first(where: { $0.streamId == stream.streamId }),
                  let new = confirmedLocal.first(where: { $0.streamId == stream.streamId }) else { return false }
            return old.muted != new.muted
        }
        if !removed.isEmpty { let info = local; render { $0.stage(self, participant: info, didRemove: removed) } }
        setLocalPublishState(state.state == .published ? .published : .notPublished)
        let info = local
        if !added.isEmpty { render { $0.stage(self, participant: info, didAdd: added) } }
        if !muted.isEmpty { render { $0.stage(self, participant: info, didChangeMutedStreams: muted) } }
    }

    /// A request was refused: undo what it assumed and tell the error delegate.
    private func refused(_ error: ServerMessage.SignalError) {
        let stageError = StageError(code: .server(error.code), message: error.message)
        if let requestId = error.requestId, let answer = requests.answerWaiter(for: requestId) {
            return answer.resolve(.failure(stageError))
        }
        if joinWaiter != nil {
            tearDown(error: stageError)
            return
        }
        if let requestId = error.requestId, let request = requests.reply(to: requestId) {
            switch request {
            case .publish:
                applied.published = confirmedLocal.isEmpty ? nil : confirmedLocal
                setLocalPublishState(confirmedLocal.isEmpty ? .notPublished : .published)
            case .unpublish:
                applied.published = confirmedLocal.isEmpty ? nil : confirmedLocal
            case .subscribe(let participantId, _):
                applied.subscriptions[participantId] = nil
                if roster[participantId]?.received.isEmpty ?? true { setSubscribeState(participantId, .notSubscribed) }
            }
        }
        reportError(stageError)
    }

    /// Ends the session locally: streams removed, participants gone, then disconnected.
    func tearDown(error: StageError?) {
        stopAllMedia()
        mediaReconnecting = false
        pingTask?.cancel()
        pingTask = nil
        let channel = self.channel
        self.channel = nil
        channelGeneration += 1
        channel?.close()
        let wasJoined = joinWaiter == nil && connectionState == .connected
        if wasJoined {
            for id in roster.order { removeRemote(id) }
            let info = local
            let published = publishedStreams
            if !published.isEmpty { render { $0.stage(self, participant: info, didRemove: published) } }
            confirmedLocal = []
            setLocalPublishState(.notPublished)
            let leaving = local
            render { $0.stage(self, participantDidLeave: leaving) }
        }
        roster.removeAll()
        applied = StrategyState()
        requests.forgetRequests()
        confirmedLocal = []
        for stream in localStreams { stream.stage = nil }
        setConnectionState(.disconnected, error: error)
        if let waiter = joinWaiter {
            joinWaiter = nil
            waiter.resume(throwing: error ?? StageError(code: .connectionFailed, message: "join: the connection closed"))
        }
        for waiter in requests.removePongWaiters() { waiter.resume(returning: false) }
    }
}
