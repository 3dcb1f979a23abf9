import Foundation
import StageProtocol
@testable import StageServer
import Testing

/// Every rule botocore leaves to the server answers its error type, with the field named in the message.
@Suite struct CompositionValidationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var operation: String
        var body: @Sendable (CompositionFixture) -> String
        var kind: APIError.Kind
        var field: String
        var testDescription: String { "\(operation) → \(kind.rawValue) naming \(field)" }

        init(_ operation: String, _ field: String, _ body: @escaping @Sendable (CompositionFixture) -> String) {
            self.init(operation, .validation, field, body)
        }

        init(_ operation: String, _ kind: APIError.Kind, _ field: String, _ body: @escaping @Sendable (CompositionFixture) -> String) {
            self.operation = operation
            self.kind = kind
            self.field = field
            self.body = body
        }
    }

    static let other = "arn:aws:ivs:us-east-1:123456789012"

    static let cases: [Case] = [
        // Encoder configurations.
        Case("CreateEncoderConfiguration", "video.width") { _ in #"{"video":{"width":1921}}"# },
        Case("CreateEncoderConfiguration", "video.width") { _ in #"{"video":{"width":641}}"# },
        Case("CreateEncoderConfiguration", "video.height") { _ in #"{"video":{"height":1}}"# },
        Case("CreateEncoderConfiguration", "video.width, video.height") { _ in #"{"video":{"width":1920,"height":1920}}"# },
        Case("CreateEncoderConfiguration", "video.framerate") { _ in #"{"video":{"framerate":60.5}}"# },
        Case("CreateEncoderConfiguration", "video.framerate") { _ in #"{"video":{"framerate":0.5}}"# },
        Case("CreateEncoderConfiguration", "video.bitrate") { _ in #"{"video":{"bitrate":8500001}}"# },
        Case("CreateEncoderConfiguration", "video.bitrate") { _ in #"{"video":{"bitrate":"fast"}}"# },
        Case("CreateEncoderConfiguration", "name") { _ in #"{"name":"has space"}"# },
        Case("CreateEncoderConfiguration", "video.depth") { _ in #"{"video":{"depth":8}}"# },
        Case("GetEncoderConfiguration", "arn") { _ in #"{"arn":"arn:aws:ivs:us-east-1:1:stage/abc"}"# },
        Case("GetEncoderConfiguration", .notFound, "arn") { _ in #"{"arn":"\#(other):encoder-configuration/nope"}"# },
        Case("DeleteEncoderConfiguration", .notFound, "arn") { _ in #"{"arn":"\#(other):encoder-configuration/nope"}"# },
        Case("ListEncoderConfigurations", "maxResults") { _ in #"{"maxResults":101}"# },
        // Storage configurations.
        Case("CreateStorageConfiguration", "s3") { _ in #"{"name":"x"}"# },
        Case("CreateStorageConfiguration", "s3.bucketName") { _ in #"{"s3":{"bucketName":"ab"}}"# },
        Case("CreateStorageConfiguration", "s3.bucketName") { _ in #"{"s3":{"bucketName":"Upper"}}"# },
        Case("CreateStorageConfiguration", "s3.bucketName") { _ in #"{"s3":{"bucketName":"a/b"}}"# },
        Case("CreateStorageConfiguration", "s3.bucketName") { _ in #"{"s3":{"bucketName":"-abc"}}"# },
        Case("CreateStorageConfiguration", "s3.bucketName") { _ in #"{"s3":{"bucketName":"a..b"}}"# },
        Case("CreateStorageConfiguration", "s3.bucketName") { _ in #"{"s3":{"bucketName":"\#(String(repeating: "a", count: 64))"}}"# },
        Case("GetStorageConfiguration", .notFound, "arn") { _ in #"{"arn":"\#(other):storage-configuration/nope"}"# },
        // StartComposition.
        Case("StartComposition", "stageArn") { _ in #"{"stageArn":"stage/abc","destinations":[]}"# },
        Case("StartComposition", "destinations") { f in #"{"stageArn":"\#(f.stageArn)"}"# },
        Case("StartComposition", "destinations") { f in #"{"stageArn":"\#(f.stageArn)","destinations":[]}"# },
        Case("StartComposition", "destinations") { f in
            #"{"stageArn":"\#(f.stageArn)","destinations":[\#(f.s3Destination),\#(f.s3Destination),\#(f.s3Destination)]}"#
        },
        Case("StartComposition", "destinations") { f in #"{"stageArn":"\#(f.stageArn)","destinations":[\#(f.s3Destination),\#(f.s3Destination)]}"# },
        Case("StartComposition", "destinations[0]") { f in #"{"stageArn":"\#(f.stageArn)","destinations":[{"name":"x"}]}"# },
        Case("StartComposition", "destinations[0].name") { f in #"{"stageArn":"\#(f.stageArn)","destinations":[{"name":"a b"}]}"# },
        Case("StartComposition", "destinations[0].channel.channelArn") { f in
            #"{"stageArn":"\#(f.stageArn)","destinations":[{"channel":{"channelArn":"\#(other):stage/abc"}}]}"#
        },
        Case("StartComposition", "destinations[0].s3.encoderConfigurationArns") { f in
            #"{"stageArn":"\#(f.stageArn)","destinations":[{"s3":{"storageConfigurationArn":"\#(f.storageArn)"}}]}"#
        },
        Case("StartComposition", "destinations[0].s3.encoderConfigurationArns") { f in
            #"{"stageArn":"\#(f.stageArn)","destinations":[{"s3":{"storageConfigurationArn":"\#(f.storageArn)","encoderConfigurationArns":["\#(f.encoderArn)","\#(f.encoderArn)"]}}]}"#
        },
        Case("StartComposition", "destinations[0].s3.recordingConfiguration.hlsConfiguration.targetSegmentDurationSeconds") { f in
            #"{"stageArn":"\#(f.stageArn)","destinations":[{"s3":{"storageConfigurationArn":"\#(f.storageArn)","encoderConfigurationArns":["\#(f.encoderArn)"],"recordingConfiguration":{"hlsConfiguration":{"targetSegmentDurationSeconds":11}}}}]}"#
        },
        Case("StartComposition", "destinations[0].s3.recordingConfiguration.format") { f in
            #"{"stageArn":"\#(f.stageArn)","destinations":[{"s3":{"storageConfigurationArn":"\#(f.storageArn)","encoderConfigurationArns":["\#(f.encoderArn)"],"recordingConfiguration":{"format":"MP4"}}}]}"#
        },
        Case("StartComposition", "destinations[0].s3.thumbnailConfigurations[0].targetIntervalSeconds") { f in
            #"{"stageArn":"\#(f.stageArn)","destinations":[{"s3":{"storageConfigurationArn":"\#(f.storageArn)","encoderConfigurationArns":["\#(f.encoderArn)"],"thumbnailConfigurations":[{"targetIntervalSeconds":0}]}}]}"#
        },
        Case("StartComposition", "destinations[0].s3.thumbnailConfigurations[0].storage[0]") { f in
            #"{"stageArn":"\#(f.stageArn)","destinations":[{"s3":{"storageConfigurationArn":"\#(f.storageArn)","encoderConfigurationArns":["\#(f.encoderArn)"],"thumbnailConfigurations":[{"storage":["BOTH"]}]}}]}"#
        },
        Case("StartComposition", "idempotencyToken") { f in f.start(token: "has space") },
        Case("StartComposition", "idempotencyToken") { f in f.start(token: String(repeating: "t", count: 65)) },
        Case("StartComposition", "tags") { f in f.start(extra: #","tags":{"":"v"}"#) },
        Case("StartComposition", "layout") { f in f.start(extra: #","layout":{"grid":{},"pip":{}}"#) },
        Case("StartComposition", "layout.grid.gridGap") { f in f.start(extra: #","layout":{"grid":{"gridGap":-1}}"#) },
        Case("StartComposition", "layout.grid.videoAspectRatio") { f in f.start(extra: #","layout":{"grid":{"videoAspectRatio":"WIDE"}}"#) },
        Case("StartComposition", "layout.grid.featuredParticipantAttribute") { f in
            f.start(extra: #","layout":{"grid":{"featuredParticipantAttribute":"a b"}}"#)
        },
        Case("StartComposition", "layout.pip.pipPosition") { f in f.start(extra: #","layout":{"pip":{"pipPosition":"CENTER"}}"#) },
        Case("StartComposition", "layout.pip.pipBehavior") { f in f.start(extra: #","layout":{"pip":{"pipBehavior":"FLOAT"}}"#) },
        Case("StartComposition", "layout.pip.pipWidth") { f in f.start(extra: #","layout":{"pip":{"pipWidth":0}}"#) },
        Case("StartComposition", "layout.pip.pipWidth") { f in f.start(extra: #","layout":{"pip":{"pipWidth":641}}"#) },
        Case("StartComposition", "layout.pip.videoFillMode") { f in f.start(extra: #","layout":{"pip":{"videoFillMode":"STRETCH"}}"#) },
        Case("StartComposition", .notFound, "stageArn") { f in
            #"{"stageArn":"\#(other):stage/nope","destinations":[\#(f.s3Destination)]}"#
        },
        Case("StartComposition", .notFound, "destinations[0].channel.channelArn") { f in
            #"{"stageArn":"\#(f.stageArn)","destinations":[{"channel":{"channelArn":"\#(other):channel/nope"}}]}"#
        },
        Case("StartComposition", .notFound, "destinations[0].channel.encoderConfigurationArn") { f in
            #"{"stageArn":"\#(f.stageArn)","destinations":[{"channel":{"channelArn":"\#(f.channelArn)","encoderConfigurationArn":"\#(other):encoder-configuration/nope"}}]}"#
        },
        Case("StartComposition", .notFound, "destinations[0].s3.storageConfigurationArn") { f in
            #"{"stageArn":"\#(f.stageArn)","destinations":[{"s3":{"storageConfigurationArn":"\#(other):storage-configuration/nope","encoderConfigurationArns":["\#(f.encoderArn)"]}}]}"#
        },
        Case("StartComposition", .notFound, "destinations[0].s3.encoderConfigurationArns[0]") { f in
            #"{"stageArn":"\#(f.stageArn)","destinations":[{"s3":{"storageConfigurationArn":"\#(f.storageArn)","encoderConfigurationArns":["\#(other):encoder-configuration/nope"]}}]}"#
        },
        Case("GetComposition", .notFound, "arn") { _ in #"{"arn":"\#(other):composition/nope"}"# },
        Case("StopComposition", .notFound, "arn") { _ in #"{"arn":"\#(other):composition/nope"}"# },
        Case("GetComposition", "arn") { _ in #"{"arn":"\#(other):composition/"}"# },
        Case("ListCompositions", "filterByStageArn") { _ in #"{"filterByStageArn":"nope"}"# },
        Case("ListCompositions", "maxResults") { _ in #"{"maxResults":0}"# },
        // ivs channels.
        Case("CreateChannel", "latencyMode") { _ in #"{"latencyMode":"FAST"}"# },
        Case("CreateChannel", "type") { _ in #"{"type":"PREMIUM"}"# },
        Case("CreateChannel", "preset") { _ in #"{"type":"STANDARD","preset":"HIGHER_BANDWIDTH_DELIVERY"}"# },
        Case("CreateChannel", "authorized") { _ in #"{"authorized":true}"# },
        Case("CreateChannel", "containerFormat") { _ in #"{"containerFormat":"TS"}"# },
        Case("CreateChannel", "multitrackInputConfiguration.enabled") { _ in #"{"multitrackInputConfiguration":{"enabled":true}}"# },
        Case("CreateChannel", "recordingConfigurationArn") { _ in #"{"recordingConfigurationArn":"nope"}"# },
        Case("CreateChannel", .notFound, "recordingConfigurationArn") { _ in #"{"recordingConfigurationArn":"\#(other):recording-configuration/abc"}"# },
        Case("CreateChannel", "name") { _ in #"{"name":"\#(String(repeating: "n", count: 129))"}"# },
        Case("CreateChannel", "tags.k") { _ in #"{"tags":{"k":"a\"b"}}"# },
        Case("GetChannel", .notFound, "arn") { _ in #"{"arn":"\#(other):channel/nope"}"# },
        Case("DeleteChannel", .notFound, "arn") { _ in #"{"arn":"\#(other):channel/nope"}"# },
        Case("ListChannels", .conflict, "filterByName, filterByRecordingConfigurationArn") { _ in
            #"{"filterByName":"a","filterByRecordingConfigurationArn":"\#(other):recording-configuration/abc"}"#
        },
        Case("ListChannels", "maxResults") { _ in #"{"maxResults":101}"# },
        Case("GetStream", .channelNotBroadcasting, "channelArn") { f in #"{"channelArn":"\#(f.channelArn)"}"# },
        Case("GetStream", "channelArn") { _ in #"{}"# },
        Case("ListStreams", "filterBy.health") { _ in #"{"filterBy":{"health":"SICK"}}"# },
    ]

    @Test(arguments: cases)
    func refusesWithFieldAndRule(_ testCase: Case) async throws {
        let harness = try CompositionHarness()
        await harness.attachRunner()
        let fixture = try await harness.fixture()
        let error = try #require(await harness.error(testCase.operation, testCase.body(fixture)))
        #expect(error.kind == testCase.kind, "\(error.message)")
        #expect(error.message.hasPrefix(testCase.field + ":") || error.message.hasPrefix(testCase.field + "["), "\(error.message)")
        #expect(harness.runner.plans.count == 0)
    }

    @Test("ivs errors carry their model status: ChannelNotBroadcasting and ResourceNotFound 404, quota 402")
    func statuses() {
        #expect(APIError.Kind.channelNotBroadcasting.status.code == 404)
        #expect(APIError.Kind.quotaExceeded.status.code == 402)
        #expect(APIError.Kind.conflict.status.code == 409)
    }

    @Test("ARN patterns follow the model", arguments: [
        ("arn:aws:ivs:us-east-1:123456789012:channel/abcDEF-1", "channel", true),
        ("arn:aws:ivs:us-east-1:123456789012:channel/", "channel", false),
        ("arn:aws:ivs:US-east-1:123456789012:channel/abc", "channel", false),
        ("arn:aws:ivs:us-east-1:12a:channel/abc", "channel", false),
        ("arn:aws:ivs:us-east-1:1:channel/ab_c", "channel", false),
        ("arn:aws:ivs:us-east-1:1:stage/abc", "channel", false),
        ("arn:aws:ivs:us-east-1:1:encoder-configuration/abc", "encoder-configuration", true),
    ])
    func arnPatterns(_ arn: String, _ type: String, _ matches: Bool) {
        #expect(FieldRules.matchesARN(arn, type: type) == matches)
    }
}
