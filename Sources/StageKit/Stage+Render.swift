/// Delivery of renderer callbacks to every live renderer.
extension Stage {
    func render(_ call: (any StageRenderer) -> Void) {
        renderers.removeAll { $0.renderer == nil }
        for entry in renderers {
            if let renderer = entry.renderer { call(renderer) }
        }
    }

    func setConnectionState(_ state: StageConnectionState, error: StageError?) {
        guard state != connectionState || error != nil else { return }
        connectionState = state
        render { $0.stage(self, didChange: state, withError: error) }
    }

    func setLocalPublishState(_ state: ParticipantPublishState) {
        guard local.publishState != state else { return }
        local.publishState = state
        let info = local
        render { $0.stage(self, participant: info, didChange: state) }
    }

    func setSubscribeState(_ participantId: String, _ state: ParticipantSubscribeState) {
        guard let info = roster.setSubscribeState(state, of: participantId) else { return }
        render { $0.stage(self, participant: info, didChange: state) }
    }

    func reportError(_ error: StageError) {
        errorDelegate?.stage(self, didEncounterError: error)
    }
}
