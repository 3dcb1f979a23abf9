/// What the composition board asks of the live rooms.
extension SignalingHub {
    /// How many participants publish on `stageId` now (a composition's compositor only subscribes).
    func publisherCount(stageId: String) -> Int {
        rooms[stageId]?.members.values.reduce(0) { $0 + ($1.published == nil ? 0 : 1) } ?? 0
    }
}
