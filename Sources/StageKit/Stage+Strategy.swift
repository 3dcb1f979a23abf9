import StageProtocol

/// Turning the strategy's answers into requests.
extension Stage {
    /// What the strategy wants now. Publishing is asked only when the token grants PUBLISH.
    func desiredState() -> StrategyState {
        var desired = StrategyState()
        if local.capabilities.allowPublish, strategy.stage(self, shouldPublishParticipant: local) {
            let streams = strategy.stage(self, streamsToPublishForParticipant: local)
            if !streams.isEmpty {
                adoptLocalStreams(streams)
                desired.published = streams.map(\.descriptor)
            }
        }
        for remote in roster.participants {
            let type = strategy.stage(self, shouldSubscribeToParticipant: remote.info)
            if type != .none { desired.subscriptions[remote.info.participantId] = type }
        }
        return desired
    }

    /// Asks the strategy about one new publisher only, as IVS does when a participant appears.
    func applyStrategy(forNewPublisher participantId: String) {
        guard let remote = roster[participantId] else { return }
        var desired = applied
        desired.subscriptions[participantId] = strategy.stage(self, shouldSubscribeToParticipant: remote.info)
        perform(StrategyDiff.actions(from: applied, to: StrategyState(published: desired.published, subscriptions: desired.subscriptions),
                                     publishers: [participantId]))
    }

    /// The streams the strategy returned become the ones whose `setMuted` reaches this stage.
    func adoptLocalStreams(_ streams: [LocalStageStream]) {
        for old in localStreams where !streams.contains(where: { $0 === old }) { old.stage = nil }
        for stream in streams { stream.stage = self }
        localStreams = streams
    }

    func perform(_ actions: [StrategyAction]) {
        guard let channel else { return }
        strategyRequestsSent += actions.count
        for action in actions {
            switch action {
            case .publish(let streams):
                let requestId = requests.register(.publish)
                applied.published = streams
                setLocalPublishState(local.publishState == .published ? .published : .attemptingPublish)
                startPublishing(requestId: requestId, streams: streams)
            case .unpublish:
                let requestId = requests.register(.unpublish)
                applied.published = nil
                stopPublishingMedia()
                channel.send(.unpublish(.init(requestId: requestId)))
            case .mute(let streamId, let muted):
                setAppliedMute(streamId: streamId, muted: muted)
                mediaPublisher?.setMuted(streamId: streamId, muted: muted)
                channel.send(.mute(.init(streamId: streamId, muted: muted)))
            case .subscribe(let participantId, let type):
                let requestId = requests.register(.subscribe(participantId: participantId, type: type))
                applied.subscriptions[participantId] = type == .none ? nil : type
                if type == .none { stopReceiving(from: participantId) }
                if type != .none, roster[participantId]?.info.subscribeState == .notSubscribed {
                    setSubscribeState(participantId, .attemptingSubscribe)
                }
                channel.send(.subscribe(.init(requestId: requestId, participantId: participantId, subscribeType: type)))
            }
        }
    }

    func setAppliedMute(streamId: String, muted: Bool) {
        guard let index = applied.published?.firstIndex(where: { $0.streamId == streamId }) else { return }
        applied.published?[index].muted = muted
    }

    /// `LocalStageStream.setMuted` on a stream this stage publishes.
    func localStreamMuteChanged(_ stream: LocalStageStream) {
        guard connectionState == .connected, applied.published?.contains(where: { $0.streamId == stream.streamId }) == true else { return }
        perform([.mute(streamId: stream.streamId, muted: stream.isMuted)])
    }
}
