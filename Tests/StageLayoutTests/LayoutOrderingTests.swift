import Testing
@testable import StageLayout

@Suite("Participant order")
struct LayoutOrderingTests {
    @Test("participantOrderAttribute: keyed first ascending (numbers by value), then unkeyed by arrival")
    func orderAttribute() {
        let keys: [Int: String] = [1: "", 2: "10", 3: "2", 5: "2", 6: "1"]
        let participants = layoutParticipants(6) { index in keys[index].map { ["seat": $0] } ?? [:] }
        let ordered = LayoutOrdering.ordered(participants, orderAttribute: "seat", omitStoppedVideo: false)
        #expect(ordered.map(\.participantId) == ["p6", "p3", "p5", "p2", "p1", "p4"])
        let tiles = gridLayout(GridLayoutConfiguration(participantOrderAttribute: "seat")).tiles(for: participants)
        #expect(tiles.map(\.participantId) == ["p6", "p3", "p5", "p2", "p1", "p4"])
    }

    @Test("Non-numeric keys compare as strings")
    func stringKeys() {
        let names = ["carol", "alice", "bob"]
        let participants = layoutParticipants(3) { ["name": names[$0 - 1]] }
        let ordered = LayoutOrdering.ordered(participants, orderAttribute: "name", omitStoppedVideo: false)
        #expect(ordered.map(\.participantId) == ["p2", "p3", "p1"])
    }

    @Test("Without an order attribute, join order")
    func joinOrder() {
        let participants = layoutParticipants(4) { ["seat": "\(5 - $0)"] }
        #expect(LayoutOrdering.ordered(participants, orderAttribute: nil, omitStoppedVideo: false).map(\.participantId)
            == ["p1", "p2", "p3", "p4"])
        #expect(LayoutOrdering.ordered(participants, orderAttribute: "", omitStoppedVideo: false).map(\.participantId)
            == ["p1", "p2", "p3", "p4"])
    }
}
