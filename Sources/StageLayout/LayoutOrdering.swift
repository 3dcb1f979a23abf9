/// Which participants a layout shows and in what order.
///
/// IVS: participants whose `participantOrderAttribute` is `""` or absent "are ordered based on
/// their arrival time into the stage" (API_GridConfiguration / API_PipConfiguration). IVS does
/// not say how keyed participants compare or where they go relative to unkeyed ones, so:
/// participants with a key come first, in ascending key order (numerically when both keys are
/// integers, so "2" precedes "10"; otherwise by string), equal keys by arrival; then everyone
/// without a key, by arrival. `omitStoppedVideo` drops participants without running video first.
enum LayoutOrdering {
    /// `participants` in join order → the shown ones in display order.
    static func ordered(_ participants: [LayoutParticipant], orderAttribute: String?,
                        omitStoppedVideo: Bool) -> [LayoutParticipant] {
        let shown = omitStoppedVideo ? participants.filter(\.hasVideo) : participants
        guard let orderAttribute, !orderAttribute.isEmpty else { return shown }
        let keyed = shown.enumerated().compactMap { index, participant -> (Int, String, LayoutParticipant)? in
            guard let key = participant.attributes[orderAttribute], !key.isEmpty else { return nil }
            return (index, key, participant)
        }
        let sortedKeyed = keyed.sorted { lhs, rhs in
            if lhs.1 != rhs.1 { return precedes(lhs.1, rhs.1) }
            return lhs.0 < rhs.0
        }
        let unkeyed = shown.filter { ($0.attributes[orderAttribute] ?? "").isEmpty }
        return sortedKeyed.map(\.2) + unkeyed
    }

    /// Ascending order of two ordering keys: integers by value, anything else by string.
    static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        if let left = Int(lhs), let right = Int(rhs) { return left < right }
        return lhs < rhs
    }
}
