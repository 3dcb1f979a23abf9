import StageKit
import Testing

/// IVS's ranges for a local stream's encoding: values outside throw an error naming the field.
@Suite struct StreamConfigurationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var apply: @Sendable (inout LocalStageStreamVideoConfiguration) throws -> Void
        var field: String
        var testDescription: String { name }
    }

    static let refused: [Case] = [
        Case(name: "maxBitrate below 100 kbps", apply: { try $0.setMaxBitrate(99_999) }, field: "maxBitrate"),
        Case(name: "maxBitrate above 8.5 Mbps", apply: { try $0.setMaxBitrate(8_500_001) }, field: "maxBitrate"),
        Case(name: "maxBitrate below minBitrate", apply: { try $0.setMinBitrate(1_000_000); try $0.setMaxBitrate(500_000) }, field: "maxBitrate"),
        Case(name: "minBitrate above maxBitrate", apply: { try $0.setMinBitrate(3_000_000) }, field: "minBitrate"),
        Case(name: "framerate 9", apply: { try $0.setTargetFramerate(9) }, field: "targetFramerate"),
        Case(name: "framerate 61", apply: { try $0.setTargetFramerate(61) }, field: "targetFramerate"),
        Case(name: "width 159", apply: { try $0.setSize(width: 158, height: 360) }, field: "size.width"),
        Case(name: "height 1921", apply: { try $0.setSize(width: 640, height: 1922) }, field: "size.height"),
        Case(name: "odd width", apply: { try $0.setSize(width: 641, height: 360) }, field: "size"),
        Case(name: "0 temporal layers", apply: { try $0.setTemporalLayers(0) }, field: "temporalLayers"),
        Case(name: "4 temporal layers", apply: { try $0.setTemporalLayers(4) }, field: "temporalLayers"),
    ]

    @Test(arguments: refused)
    func outOfRangeIsRefusedAndNothingChanges(_ testCase: Case) {
        var configuration = LocalStageStreamVideoConfiguration()
        let before = configuration
        var thrown: StageConfigurationError?
        do { try testCase.apply(&configuration) } catch { thrown = error as? StageConfigurationError }
        #expect(thrown?.field == testCase.field, "\(String(describing: thrown))")
        #expect(thrown?.description.contains(testCase.field) == true)
        if testCase.name != "maxBitrate below minBitrate" { #expect(configuration == before, "a refused value changes nothing") }
    }

    @Test func inRangeValuesApply() throws {
        var configuration = LocalStageStreamVideoConfiguration()
        try configuration.setSize(width: 640, height: 360)
        try configuration.setTargetFramerate(60)
        try configuration.setMaxBitrate(8_500_000)
        try configuration.setMinBitrate(100_000)
        #expect(configuration.width == 640 && configuration.height == 360 && configuration.targetFramerate == 60)
        #expect(configuration.maxBitrate == 8_500_000 && configuration.minBitrate == 100_000)
        #expect(configuration.simulcastEnabled, "simulcast is on by default")
        #expect(configuration.temporalLayers == 3, "L1T3 by default")
        try configuration.setTemporalLayers(1)
        #expect(configuration.temporalLayers == 1)
    }

    @Test func audioBitrateRange() {
        var audio = LocalStageStreamAudioConfiguration()
        #expect(throws: StageConfigurationError.self) { try audio.setMaxBitrate(8_000) }
        #expect(throws: StageConfigurationError.self) { try audio.setMaxBitrate(256_000) }
        #expect((try? audio.setMaxBitrate(32_000)) != nil && audio.maxBitrate == 32_000)
    }
}
