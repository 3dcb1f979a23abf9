@testable import StageServer
import StageSFU
import Testing

/// Which new producer takes over each old one when a publisher publishes again: by msid track
/// id, else by mid with the same kind; each new producer at most once; never across kinds.
struct PublisherHandOverTests {
    typealias Track = PublisherHandOver.Track

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var old: [Track]
        var new: [Track]
        var expected: [String: String]
        var testDescription: String { name }
    }

    @Test("old mid → new mid", arguments: [
        Case(name: "same sections, same tracks",
             old: [Track(mid: "0", kind: .audio, trackID: "mic"), Track(mid: "1", kind: .video, trackID: "cam")],
             new: [Track(mid: "0", kind: .audio, trackID: "mic"), Track(mid: "1", kind: .video, trackID: "cam")],
             expected: ["0": "0", "1": "1"]),
        Case(name: "a track moved to another mid follows its track id, not the mid",
             old: [Track(mid: "0", kind: .video, trackID: "cam"), Track(mid: "1", kind: .video, trackID: "screen")],
             new: [Track(mid: "0", kind: .video, trackID: "screen"), Track(mid: "1", kind: .video, trackID: "cam")],
             expected: ["0": "1", "1": "0"]),
        Case(name: "without track ids: the same mid with the same kind",
             old: [Track(mid: "0", kind: .audio), Track(mid: "1", kind: .video)],
             new: [Track(mid: "0", kind: .audio), Track(mid: "1", kind: .video)],
             expected: ["0": "0", "1": "1"]),
        Case(name: "the same mid with another kind is no match",
             old: [Track(mid: "0", kind: .audio)], new: [Track(mid: "0", kind: .video)], expected: [:]),
        Case(name: "a new track of the same kind elsewhere is not taken (the old one closes)",
             old: [Track(mid: "0", kind: .video, trackID: "cam")], new: [Track(mid: "3", kind: .video, trackID: "other")], expected: [:]),
        Case(name: "a mid fallback cannot take a section a track id already claimed; each successor once",
             old: [Track(mid: "0", kind: .video, trackID: "cam"), Track(mid: "1", kind: .video, trackID: "gone")],
             new: [Track(mid: "1", kind: .video, trackID: "cam")],
             expected: ["0": "1"]),
        Case(name: "two old tracks with one id: the first in offer order wins",
             old: [Track(mid: "0", kind: .video, trackID: "cam"), Track(mid: "1", kind: .video, trackID: "cam")],
             new: [Track(mid: "5", kind: .video, trackID: "cam")],
             expected: ["0": "5"]),
        Case(name: "a track id of another kind is no match; the mid fallback still applies",
             old: [Track(mid: "0", kind: .audio, trackID: "x")],
             new: [Track(mid: "1", kind: .video, trackID: "x"), Track(mid: "0", kind: .audio, trackID: "y")],
             expected: ["0": "0"]),
    ])
    func successors(_ example: Case) {
        #expect(PublisherHandOver.successors(of: example.old, in: example.new) == example.expected)
    }
}
