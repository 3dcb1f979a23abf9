import Testing
@testable import StageHLS

@Suite struct HLSBlockingRequestTests {
    let last = HLSLiveRendition.Position(sequence: 10, part: 2)

    @Test(arguments: [
        ([:], HLSBlockingRequest.immediate),
        (["_HLS_msn": "10", "_HLS_part": "3"], .wait(sequence: 10, part: 3)),
        (["_HLS_msn": "11"], .wait(sequence: 11, part: nil)),
        (["_HLS_msn": "12", "_HLS_part": "0"], .wait(sequence: 12, part: 0)),
        (["_HLS_msn": "3"], .wait(sequence: 3, part: nil)),
    ])
    func accepts(query: [String: String], expected: HLSBlockingRequest) {
        #expect(HLSBlockingRequest.parse(query: query, last: last, partTarget: 1.0 / 3) == expected)
    }

    @Test(arguments: [
        (["_HLS_part": "1"], "requires _HLS_msn"),
        (["_HLS_msn": "13"], "more than two segments"),
        (["_HLS_msn": "x"], "non-negative integer"),
        (["_HLS_msn": "-1"], "non-negative integer"),
        (["_HLS_msn": "10", "_HLS_part": "y"], "non-negative integer"),
        (["_HLS_msn": "10", "_HLS_part": "12"], "parts past the last"),
        (["_HLS_msn": "11", "_HLS_part": "9"], "parts past the last"),
    ])
    func refuses(query: [String: String], reason: String) {
        guard case .badRequest(let message) = HLSBlockingRequest.parse(query: query, last: last, partTarget: 1.0 / 3) else {
            Issue.record("expected 400 for \(query)")
            return
        }
        #expect(message.contains(reason))
    }

    @Test func classicPlaylistsRefuseParts() {
        #expect(HLSBlockingRequest.parse(query: ["_HLS_msn": "10", "_HLS_part": "0"], last: last, partTarget: nil)
                == .badRequest("_HLS_part: this playlist has no parts"))
    }
}
