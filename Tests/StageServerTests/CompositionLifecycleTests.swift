import Foundation
import StageLayout
import StageProtocol
@testable import StageServer
import Testing

/// StartComposition through the board to STOPPED: plans, idempotency, conflicts, states, idle stop.
@Suite struct CompositionLifecycleTests {
    @Test("StartComposition answers STARTING with IVS's echo and hands the runner a resolved plan")
    func startBuildsPlan() async throws {
        let h = try CompositionHarness()
        await h.attachRunner()
        let f = try await h.fixture()
        let out = try await h.call("StartComposition", f.start(extra: #","layout":{"pip":{"pipPosition":"TOP_LEFT"}},"tags":{"k":"v"}"#))
        let composition = try #require(out["composition"] as? [String: Any])
        #expect(composition["state"] as? String == "STARTING")
        #expect((composition["arn"] as? String)?.hasPrefix("arn:aws:ivs:us-east-1:123456789012:composition/") == true)
        #expect(composition["stageArn"] as? String == f.stageArn)
        #expect(composition[path: "layout", "pip", "pipPosition"] as? String == "TOP_LEFT")
        #expect(composition[path: "layout", "pip", "pipBehavior"] as? String == "STATIC")
        #expect(composition[path: "destinations", "0", "state"] as? String == "STARTING")
        #expect(composition[path: "destinations", "1", "configuration", "s3", "recordingConfiguration", "format"] as? String == "HLS")
        #expect(composition[path: "destinations", "1", "configuration", "s3", "recordingConfiguration", "hlsConfiguration",
                            "targetSegmentDurationSeconds"] as? Int == 2)
        let prefix = try #require(composition[path: "destinations", "1", "detail", "s3", "recordingPrefix"] as? String)
        #expect(composition[path: "destinations", "0", "detail"] == nil)

        let plan = try #require(h.runner.plans.first)
        #expect(plan.video == .init(width: 640, height: 360, framerate: 25, bitrate: 1_000_000))
        #expect(plan.channel?.destinationIndex == 0)
        #expect(plan.channel?.latencyMode == "LOW")
        #expect(plan.recording?.destinationIndex == 1)
        #expect(plan.recording?.targetSegmentDurationSeconds == 2)
        #expect(plan.recording?.thumbnailIntervalSeconds == nil)
        let stageId = try #require(f.stageArn.split(separator: "/").last)
        #expect(prefix == "\(stageId)/\(plan.compositionId)/\(composition[path: "destinations", "1", "id"] as? String ?? "")/composite")
        #expect(plan.recording?.directory.path == h.directory.appendingPathComponent("s3/recordings/\(prefix)").path)
        guard case .pip(let pip) = plan.layout else { Issue.record("layout is not pip"); return }
        #expect(pip.pipPosition == .topLeft)
        #expect(FileManager.default.fileExists(atPath: h.directory.appendingPathComponent("s3/recordings").path))
    }

    @Test("the canvas is the channel's encoder configuration, else the s3 one's, else 1280×720 at 30 fps and 2.5 Mbps")
    func canvasChoice() async throws {
        let h = try CompositionHarness()
        await h.attachRunner()
        let f = try await h.fixture()
        _ = try await h.call("StartComposition", #"{"stageArn":"\#(f.stageArn)","destinations":[{"channel":{"channelArn":"\#(f.channelArn)"}}]}"#)
        _ = try await h.call("StartComposition", #"{"stageArn":"\#(f.stageArn)","destinations":[\#(f.s3Destination)]}"#)
        let plans = h.runner.plans
        #expect(plans.map(\.video) == [ControlPlane.VideoRules.defaults, .init(width: 640, height: 360, framerate: 25, bitrate: 1_000_000)])
        guard case .grid(let grid) = plans[0].layout else { Issue.record("default layout is not grid"); return }
        #expect(grid.gridGap == 2 && grid.videoAspectRatio == .video)
    }

    @Test("the same idempotency token returns the same composition without a second start; another request with it conflicts")
    func idempotency() async throws {
        let h = try CompositionHarness()
        await h.attachRunner()
        let f = try await h.fixture()
        let first = try await h.call("StartComposition", f.start(token: "tok-1"))
        let again = try await h.call("StartComposition", f.start(token: "tok-1"))
        #expect(first[path: "composition", "arn"] as? String == again[path: "composition", "arn"] as? String)
        #expect(h.runner.plans.count == 1)
        let other = await h.error("StartComposition", f.start(token: "tok-1", extra: #","tags":{"a":"b"}"#))
        #expect(other?.kind == .conflict)
        #expect(other?.message.hasPrefix("idempotencyToken:") == true)
    }

    @Test("a channel fed by a live composition: a second start, DeleteChannel and deleting its configurations conflict until it stops")
    func conflictsWhileLive() async throws {
        let h = try CompositionHarness()
        await h.attachRunner()
        let f = try await h.fixture()
        let arn = try #require(try await h.call("StartComposition", f.start())[path: "composition", "arn"] as? String)
        let id = String(arn.split(separator: "/").last ?? "")
        let second = await h.error("StartComposition", #"{"stageArn":"\#(f.stageArn)","destinations":[\#(f.channelDestination)]}"#)
        #expect(second?.kind == .conflict)
        #expect(second?.message.hasPrefix("destinations[0].channel.channelArn:") == true)
        for (operation, target) in [("DeleteChannel", f.channelArn), ("DeleteEncoderConfiguration", f.encoderArn),
                                    ("DeleteStorageConfiguration", f.storageArn)] {
            let error = await h.error(operation, #"{"arn":"\#(target)"}"#)
            #expect(error?.kind == .conflict, "\(operation)")
            #expect(error?.message.hasPrefix("arn:") == true)
        }
        _ = try await h.call("StopComposition", #"{"arn":"\#(arn)"}"#)
        #expect(h.runner.stops == [id])
        #expect(try await h.call("GetComposition", #"{"arn":"\#(arn)"}"#)[path: "composition", "state"] as? String == "STOPPING")
        #expect(await h.error("DeleteChannel", #"{"arn":"\#(f.channelArn)"}"#)?.kind == .conflict)
        await h.board.composition(id, didBecome: .stopped, reason: nil)
        #expect(try await h.call("DeleteChannel", #"{"arn":"\#(f.channelArn)"}"#)["noContent"] as? Bool == true)
        _ = try await h.call("DeleteEncoderConfiguration", #"{"arn":"\#(f.encoderArn)"}"#)
        _ = try await h.call("DeleteStorageConfiguration", #"{"arn":"\#(f.storageArn)"}"#)
    }

    @Test("runner reports move the composition and its destinations; a channel is LIVE while an ACTIVE composition feeds it")
    func stateTransitions() async throws {
        let h = try CompositionHarness()
        await h.attachRunner()
        let f = try await h.fixture()
        let arn = try #require(try await h.call("StartComposition", f.start())[path: "composition", "arn"] as? String)
        let id = String(arn.split(separator: "/").last ?? "")
        let get = { try await h.call("GetComposition", #"{"arn":"\#(arn)"}"#)["composition"] as? [String: Any] ?? [:] }

        #expect(await h.error("GetStream", #"{"channelArn":"\#(f.channelArn)"}"#)?.kind == .channelNotBroadcasting)
        await h.board.composition(id, didBecome: .active, reason: nil)
        #expect(try await get()["state"] as? String == "ACTIVE")
        var stream = try await h.call("GetStream", #"{"channelArn":"\#(f.channelArn)"}"#)
        #expect(stream[path: "stream", "health"] as? String == "UNKNOWN")
        await h.board.destination(0, of: id, didBecome: .active, reason: nil)
        stream = try await h.call("GetStream", #"{"channelArn":"\#(f.channelArn)"}"#)
        #expect(stream[path: "stream", "state"] as? String == "LIVE")
        #expect(stream[path: "stream", "health"] as? String == "HEALTHY")
        #expect(stream[path: "stream", "viewerCount"] as? Int == 7)
        #expect((stream[path: "stream", "streamId"] as? String)?.count == 26)
        #expect(stream[path: "stream", "playbackUrl"] as? String
                == "http://127.0.0.1:8080/hls/\(f.channelArn.split(separator: "/").last ?? "")/master.m3u8")
        #expect(try await get()[path: "destinations", "0", "startTime"] != nil)
        await h.board.destination(0, of: id, didBecome: .reconnecting, reason: "network")
        let streams = try await h.call("ListStreams", #"{"filterBy":{"health":"STARVING"}}"#)
        #expect((streams["streams"] as? [Any])?.count == 1)
        #expect((try await h.call("ListStreams", #"{"filterBy":{"health":"HEALTHY"}}"#)["streams"] as? [Any])?.count == 0)

        await h.board.destination(1, of: id, didBecome: .failed, reason: "disk full")
        _ = try await h.call("StopComposition", #"{"arn":"\#(arn)"}"#)
        await h.board.composition(id, didBecome: .stopped, reason: nil)
        await h.board.composition(id, didBecome: .active, reason: "late")
        let stopped = try await get()
        #expect(stopped["state"] as? String == "STOPPED")
        #expect(stopped["endTime"] != nil)
        #expect(stopped[path: "destinations", "0", "state"] as? String == "STOPPED")
        #expect(stopped[path: "destinations", "0", "endTime"] != nil)
        #expect(stopped[path: "destinations", "1", "state"] as? String == "FAILED")
        #expect(await h.error("GetStream", #"{"channelArn":"\#(f.channelArn)"}"#)?.kind == .channelNotBroadcasting)
        #expect(await h.board.watchedIds.isEmpty)
    }

    @Test("a FAILED composition fails its running destinations and frees the channel")
    func failure() async throws {
        let h = try CompositionHarness()
        await h.attachRunner()
        let f = try await h.fixture()
        let arn = try #require(try await h.call("StartComposition", f.start())[path: "composition", "arn"] as? String)
        await h.board.composition(String(arn.split(separator: "/").last ?? ""), didBecome: .failed, reason: "compositor not available")
        let composition = try await h.call("GetComposition", #"{"arn":"\#(arn)"}"#)
        #expect(composition[path: "composition", "state"] as? String == "FAILED")
        #expect(composition[path: "composition", "destinations", "0", "state"] as? String == "FAILED")
        _ = try await h.call("StartComposition", f.start())
    }

    @Test("a composition stops by itself idleTimeout after the last publisher left, or after its start when nobody published")
    func idleStop() async throws {
        let h = try CompositionHarness(idleTimeout: 60)
        await h.attachRunner()
        let f = try await h.fixture()
        let stageId = String(f.stageArn.split(separator: "/").last ?? "")
        let quiet = try #require(try await h.call("StartComposition", #"{"stageArn":"\#(f.stageArn)","destinations":[\#(f.s3Destination)]}"#)[path: "composition", "arn"] as? String)
        let start = Date()
        await h.board.sweep(now: start.addingTimeInterval(30))
        #expect(h.runner.stops.isEmpty)
        await h.board.sweep(now: start.addingTimeInterval(61))
        #expect(h.runner.stops == [String(quiet.split(separator: "/").last ?? "")])

        let busy = try #require(try await h.call("StartComposition", #"{"stageArn":"\#(f.stageArn)","destinations":[\#(f.channelDestination)]}"#)[path: "composition", "arn"] as? String)
        let busyId = String(busy.split(separator: "/").last ?? "")
        h.publishers.set(stageId, 1)
        await h.board.sweep(now: start.addingTimeInterval(100))
        h.publishers.set(stageId, 0)
        await h.board.sweep(now: start.addingTimeInterval(150))
        #expect(!h.runner.stops.contains(busyId))
        await h.board.sweep(now: start.addingTimeInterval(161))
        #expect(h.runner.stops.contains(busyId))
        #expect(try await h.call("GetComposition", #"{"arn":"\#(busy)"}"#)[path: "composition", "state"] as? String == "STOPPING")
        // A stop the runner never confirms ends as STOPPED.
        await h.board.sweep(now: Date().addingTimeInterval(CompositionBoard.stopConfirmationTimeout + 1))
        #expect(try await h.call("GetComposition", #"{"arn":"\#(busy)"}"#)[path: "composition", "state"] as? String == "STOPPED")
    }

    @Test("DeleteStage stops the stage's compositions")
    func deleteStageStops() async throws {
        let h = try CompositionHarness()
        await h.attachRunner()
        let f = try await h.fixture()
        let arn = try #require(try await h.call("StartComposition", f.start())[path: "composition", "arn"] as? String)
        _ = try await h.call("DeleteStage", #"{"arn":"\#(f.stageArn)"}"#)
        #expect(h.runner.stops == [String(arn.split(separator: "/").last ?? "")])
        #expect(await h.error("StartComposition", f.start())?.kind == .notFound)
    }

    @Test("compositions left live by an earlier process are STOPPED at the next start")
    func danglingStopped() async throws {
        let h = try CompositionHarness()
        await h.attachRunner()
        let f = try await h.fixture()
        let arn = try #require(try await h.call("StartComposition", f.start())[path: "composition", "arn"] as? String)
        #expect(try await h.store.stopDanglingCompositions(at: Date()) == 1)
        let composition = try await h.call("GetComposition", #"{"arn":"\#(arn)"}"#)
        #expect(composition[path: "composition", "state"] as? String == "STOPPED")
        #expect(composition[path: "composition", "destinations", "1", "state"] as? String == "STOPPED")
    }

    @Test("ListCompositions pages and filters by stage and encoder configuration")
    func listPagination() async throws {
        let h = try CompositionHarness()
        await h.attachRunner()
        let f = try await h.fixture()
        var arns: [String] = []
        for _ in 0..<5 {
            let out = try await h.call("StartComposition", #"{"stageArn":"\#(f.stageArn)","destinations":[\#(f.s3Destination)]}"#)
            arns.append(out[path: "composition", "arn"] as? String ?? "")
        }
        var listed: [String] = []
        var token: String?
        repeat {
            let page = try await h.call("ListCompositions", #"{"maxResults":2\#(token.map { #","nextToken":"\#($0)""# } ?? "")}"#)
            listed += (page["compositions"] as? [[String: Any]] ?? []).compactMap { $0["arn"] as? String }
            token = page["nextToken"] as? String
        } while token != nil
        #expect(listed == arns)
        let other = try await h.call("CreateEncoderConfiguration")
        let byEncoder = try await h.call("ListCompositions", #"{"filterByEncoderConfigurationArn":"\#(other[path: "encoderConfiguration", "arn"] as? String ?? "")"}"#)
        #expect((byEncoder["compositions"] as? [Any])?.isEmpty == true)
        let byStage = try await h.call("ListCompositions", #"{"filterByStageArn":"\#(f.stageArn)","filterByEncoderConfigurationArn":"\#(f.encoderArn)"}"#)
        #expect((byStage["compositions"] as? [Any])?.count == 5)
    }

    @Test("more live compositions than the server runs at once is ServiceQuotaExceededException")
    func quota() async throws {
        let h = try CompositionHarness()
        await h.attachRunner()
        let f = try await h.fixture()
        let body = #"{"stageArn":"\#(f.stageArn)","destinations":[\#(f.s3Destination)]}"#
        for _ in 0..<ControlPlane.maxLiveCompositions { _ = try await h.call("StartComposition", body) }
        let error = await h.error("StartComposition", body)
        #expect(error?.kind == .quotaExceeded)
        #expect(error?.message.hasPrefix("compositions:") == true)
    }
}
