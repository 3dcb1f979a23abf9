import Foundation
import StageLayout
import Testing

/// IVS's `LayoutConfiguration` JSON shape: what decodes to what (defaults applied), what is
/// refused, and the echo written back.
@Suite("Layout JSON coding and rules")
struct LayoutCodingTests {
    struct Decoded: CustomTestStringConvertible, Sendable {
        var json: String
        var layout: LayoutConfiguration
        var testDescription: String { json }
    }

    static let decoded: [Decoded] = [
        Decoded(json: "{}", layout: .grid(GridLayoutConfiguration())),
        Decoded(json: #"{"grid":{}}"#, layout: .grid(GridLayoutConfiguration())),
        Decoded(json: #"{"grid":{"featuredParticipantAttribute":"","participantOrderAttribute":""}}"#,
                layout: .grid(GridLayoutConfiguration())),
        Decoded(json: #"{"grid":{"featuredParticipantAttribute":"star","videoAspectRatio":"SQUARE","videoFillMode":"FILL","gridGap":0,"omitStoppedVideo":true}}"#,
                layout: .grid(GridLayoutConfiguration(featuredParticipantAttribute: "star", omitStoppedVideo: true,
                                                      videoAspectRatio: .square, videoFillMode: .fill, gridGap: 0))),
        Decoded(json: #"{"pip":{}}"#, layout: .pip(PipLayoutConfiguration())),
        Decoded(json: #"{"pip":{"pipParticipantAttribute":"pip","pipPosition":"TOP_LEFT","pipBehavior":"DYNAMIC","pipOffset":8,"pipWidth":320}}"#,
                layout: .pip(PipLayoutConfiguration(pipParticipantAttribute: "pip", pipBehavior: .dynamic, pipOffset: 8,
                                                    pipPosition: .topLeft, pipWidth: 320))),
    ]

    @Test("decodes with IVS's defaults; an empty attribute name is none", arguments: decoded)
    func decodes(_ entry: Decoded) throws {
        #expect(try JSONDecoder().decode(LayoutConfiguration.self, from: Data(entry.json.utf8)) == entry.layout)
    }

    @Test("refuses unknown values, wrong types and both kinds at once", arguments: [
        #"{"grid":{"videoAspectRatio":"WIDE"}}"#,
        #"{"grid":{"videoFillMode":"STRETCH"}}"#,
        #"{"pip":{"pipPosition":"CENTER"}}"#,
        #"{"pip":{"pipBehavior":"FLOAT"}}"#,
        #"{"grid":{"gridGap":"2"}}"#,
        #"{"grid":{},"pip":{}}"#,
        #"{"grid":[]}"#,
        #"[]"#,
    ])
    func refuses(_ json: String) {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(LayoutConfiguration.self, from: Data(json.utf8)) }
    }

    @Test("the echo: every member with its default, none as \"\", unset sizes and grid fill left out")
    func echo() throws {
        let grid = try JSONSerialization.jsonObject(with: JSONEncoder().encode(LayoutConfiguration.grid(GridLayoutConfiguration())))
        #expect(grid as? NSDictionary == ["grid": ["featuredParticipantAttribute": "", "omitStoppedVideo": false,
                                                   "videoAspectRatio": "VIDEO", "gridGap": 2, "participantOrderAttribute": ""]])
        let pip = try JSONSerialization.jsonObject(with: JSONEncoder().encode(LayoutConfiguration.pip(PipLayoutConfiguration(pipHeight: 90))))
        #expect(pip as? NSDictionary == ["pip": ["featuredParticipantAttribute": "", "omitStoppedVideo": false, "videoFillMode": "COVER",
                                                 "gridGap": 0, "pipParticipantAttribute": "", "pipBehavior": "STATIC", "pipOffset": 0,
                                                 "pipPosition": "BOTTOM_RIGHT", "pipHeight": 90, "participantOrderAttribute": ""]])
    }

    @Test("encoding then decoding gives the same layout", arguments: decoded)
    func roundTrip(_ entry: Decoded) throws {
        let data = try JSONEncoder().encode(entry.layout)
        #expect(try JSONDecoder().decode(LayoutConfiguration.self, from: data) == entry.layout)
    }

    @Test("the PiP window fits in the composition")
    func pipFitsCanvas() throws {
        let canvas = LayoutSize(width: 640, height: 360)
        try LayoutRules.check(.pip(PipLayoutConfiguration(pipWidth: 640, pipHeight: 360)), canvas: canvas)
        try LayoutRules.check(.grid(GridLayoutConfiguration()), canvas: canvas)
        #expect(throws: LayoutRules.Violation(member: "pip.pipWidth", rule: "must be at most the composition's width 640, got 641")) {
            try LayoutRules.check(.pip(PipLayoutConfiguration(pipWidth: 641)), canvas: canvas)
        }
        #expect(throws: LayoutRules.Violation(member: "pip.pipHeight", rule: "must be at most the composition's height 360, got 361")) {
            try LayoutRules.check(.pip(PipLayoutConfiguration(pipHeight: 361)), canvas: canvas)
        }
    }
}
