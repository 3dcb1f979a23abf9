import Foundation
import StageProtocol
@testable import StageServer
import Testing

/// The `ivs` channel operations: defaults, pagination, filters, DeleteChannel's 204.
@Suite struct ChannelAPITests {
    @Test("CreateChannel applies IVS's defaults and returns the stream key; playback is this server's HLS")
    func defaults() async throws {
        let h = try CompositionHarness()
        let out = try await h.call("CreateChannel", #"{"name":"show","tags":{"team":"a b"}}"#)
        let channel = try #require(out["channel"] as? [String: Any])
        let arn = try #require(channel["arn"] as? String)
        let id = String(arn.split(separator: "/").last ?? "")
        #expect(arn.hasPrefix("arn:aws:ivs:us-east-1:123456789012:channel/"))
        #expect(channel["latencyMode"] as? String == "LOW")
        #expect(channel["type"] as? String == "STANDARD")
        #expect(channel["authorized"] as? Bool == false)
        #expect(channel["insecureIngest"] as? Bool == false)
        #expect(channel["recordingConfigurationArn"] as? String == "")
        #expect(channel["preset"] as? String == "")
        #expect(channel["playbackUrl"] as? String == "http://127.0.0.1:8080/hls/\(id)/master.m3u8")
        #expect(channel["ingestEndpoint"] as? String == "127.0.0.1:8080")
        #expect(h.plane.endpoints.playerURL(channelId: id) == "http://127.0.0.1:8080/play/\(id)")
        #expect(out[path: "streamKey", "channelArn"] as? String == arn)
        #expect((out[path: "streamKey", "arn"] as? String)?.contains(":stream-key/") == true)
        #expect((out[path: "streamKey", "value"] as? String)?.hasPrefix("sk_us-east-1_") == true)
        let advanced = try await h.call("CreateChannel", #"{"type":"ADVANCED_HD","latencyMode":"NORMAL"}"#)
        #expect(advanced[path: "channel", "preset"] as? String == "HIGHER_BANDWIDTH_DELIVERY")
        #expect(try await h.call("GetChannel", #"{"arn":"\#(arn)"}"#)[path: "channel", "name"] as? String == "show")
    }

    @Test("CreateEncoderConfiguration defaults to 1280×720, 30 fps, 2.5 Mbps")
    func encoderDefaults() async throws {
        let h = try CompositionHarness()
        let out = try await h.call("CreateEncoderConfiguration")
        #expect(out[path: "encoderConfiguration", "video", "width"] as? Int == 1280)
        #expect(out[path: "encoderConfiguration", "video", "height"] as? Int == 720)
        #expect(out[path: "encoderConfiguration", "video", "framerate"] as? Double == 30)
        #expect(out[path: "encoderConfiguration", "video", "bitrate"] as? Int == 2_500_000)
        #expect(out[path: "encoderConfiguration", "name"] as? String == "")
    }

    @Test("ListChannels pages through every channel and filters by exact name")
    func listChannels() async throws {
        let h = try CompositionHarness()
        var arns: [String] = []
        for index in 0..<5 {
            arns.append(try await h.call("CreateChannel", #"{"name":"c\#(index % 2)"}"#)[path: "channel", "arn"] as? String ?? "")
        }
        var listed: [String] = []
        var token: String?
        repeat {
            let page = try await h.call("ListChannels", #"{"maxResults":2\#(token.map { #","nextToken":"\#($0)""# } ?? "")}"#)
            listed += (page["channels"] as? [[String: Any]] ?? []).compactMap { $0["arn"] as? String }
            token = page["nextToken"] as? String
        } while token != nil
        #expect(listed == arns)
        let named = try await h.call("ListChannels", #"{"filterByName":"c1"}"#)
        #expect((named["channels"] as? [[String: Any]])?.compactMap { $0["arn"] as? String } == [arns[1], arns[3]])
    }

    @Test("DeleteChannel answers no content, then the channel is gone")
    func deleteChannel() async throws {
        let h = try CompositionHarness()
        let arn = try await h.call("CreateChannel")[path: "channel", "arn"] as? String ?? ""
        #expect(try await h.call("DeleteChannel", #"{"arn":"\#(arn)"}"#)["noContent"] as? Bool == true)
        #expect(await h.error("GetChannel", #"{"arn":"\#(arn)"}"#)?.kind == .notFound)
    }

    @Test("encoder and storage configurations page in creation order")
    func listConfigurations() async throws {
        let h = try CompositionHarness()
        for index in 0..<3 {
            _ = try await h.call("CreateEncoderConfiguration", #"{"name":"e\#(index)"}"#)
            _ = try await h.call("CreateStorageConfiguration", #"{"name":"s\#(index)","s3":{"bucketName":"bucket-\#(index)"}}"#)
        }
        let first = try await h.call("ListEncoderConfigurations", #"{"maxResults":2}"#)
        let rest = try await h.call("ListEncoderConfigurations", #"{"nextToken":"\#(first["nextToken"] as? String ?? "")"}"#)
        #expect(((first["encoderConfigurations"] as? [[String: Any]] ?? []) + (rest["encoderConfigurations"] as? [[String: Any]] ?? []))
            .compactMap { $0["name"] as? String } == ["e0", "e1", "e2"])
        #expect(rest["nextToken"] == nil)
        let storage = try await h.call("ListStorageConfigurations")
        #expect((storage["storageConfigurations"] as? [[String: Any]])?.compactMap { $0[path: "s3", "bucketName"] as? String }
                == ["bucket-0", "bucket-1", "bucket-2"])
    }
}
