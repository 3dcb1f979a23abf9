import Foundation
import StageHLS
import Testing
@testable import StageServer

/// The origin with a producer fed by hand: what an LL-HLS client sees of blocking reloads,
/// hinted parts and their limits.
@Suite struct HLSOriginTests {
    static let renditions = [HLSChannelFeed.RenditionInfo(name: "720p30", width: 1280, height: 720, frameRate: 30, bandwidth: 2_628_000)]

    func origin(segmentTarget: Double = 1) async -> HLSOrigin {
        let origin = HLSOrigin()
        await origin.open(channelId: "ch", feed: HLSChannelFeed(renditions: Self.renditions, lowLatency: true, partTarget: 0.25,
                                                                segmentTarget: segmentTarget, windowSegments: 4))
        await origin.receive(HLSChunk(kind: .initialization, rendition: 0, bytes: [1, 2, 3]), channelId: "ch")
        return origin
    }

    static func part(_ index: Int) -> HLSChunk {
        HLSChunk(kind: .part, rendition: 0, duration: 0.25, independent: index % 4 == 0, startsSegment: index % 4 == 0,
                 endsSegment: index % 4 == 3, programDateMillis: 1_700_000_000_000 + Int64(index) * 250, bytes: [UInt8(index)])
    }

    @Test func aBlockingReloadIsAnsweredWhenThePartArrives() async throws {
        let origin = await origin()
        for index in 0..<5 { await origin.receive(Self.part(index), channelId: "ch") }
        let started = ContinuousClock.now
        async let answer = origin.mediaPlaylist(channelId: "ch", rendition: "720p30", query: ["_HLS_msn": "1", "_HLS_part": "1"], client: nil)
        try await Task.sleep(for: .milliseconds(200))
        await origin.receive(Self.part(5), channelId: "ch")
        // Answered with the part, not with a 503 at the deadline (3 s here); and not before it existed.
        guard case .playlist(let text, let blocking) = await answer else { Issue.record("no playlist: the wait ran out"); return }
        let waited = ContinuousClock.now - started
        #expect(blocking)
        #expect(text.contains("URI=\"1.1.m4s\""))
        #expect(waited >= .milliseconds(150))
    }

    @Test func theHintedPartIsServedWhenItExists() async throws {
        let origin = await origin()
        for index in 0..<2 { await origin.receive(Self.part(index), channelId: "ch") }
        async let answer = origin.media(channelId: "ch", rendition: "720p30", file: "0.2.m4s")
        try await Task.sleep(for: .milliseconds(100))
        await origin.receive(Self.part(2), channelId: "ch")
        guard case .media(let bytes, let type) = await answer else { Issue.record("no part"); return }
        #expect(bytes == [2] && type == "video/iso.segment")
        // Far ahead of the hint: 404 at once, no wait.
        guard case .notFound = await origin.media(channelId: "ch", rendition: "720p30", file: "9.0.m4s") else {
            Issue.record("a part far ahead must be 404")
            return
        }
    }

    @Test func aWaitThatRunsOutIs503AndBadDirectivesAre400() async {
        let origin = await origin()
        await origin.receive(Self.part(0), channelId: "ch")
        let started = ContinuousClock.now
        guard case .unavailable = await origin.mediaPlaylist(channelId: "ch", rendition: "720p30", query: ["_HLS_msn": "1"], client: nil) else {
            Issue.record("expected 503")
            return
        }
        #expect(ContinuousClock.now - started >= .seconds(2.5))
        guard case .badRequest = await origin.mediaPlaylist(channelId: "ch", rendition: "720p30", query: ["_HLS_part": "1"], client: nil),
              case .badRequest = await origin.mediaPlaylist(channelId: "ch", rendition: "720p30", query: ["_HLS_msn": "5"], client: nil) else {
            Issue.record("expected 400s")
            return
        }
    }

    @Test func segmentsInitAndViewers() async {
        let origin = await origin()
        for index in 0..<4 { await origin.receive(Self.part(index), channelId: "ch") }
        guard case .media(let segment, _) = await origin.media(channelId: "ch", rendition: "720p30", file: "0.m4s"),
              case .media(let initSection, _) = await origin.media(channelId: "ch", rendition: "720p30", file: "init-1.mp4"),
              case .notFound = await origin.media(channelId: "ch", rendition: "1080p", file: "0.m4s"),
              case .notFound = await origin.multivariant(channelId: "nope", client: nil) else {
            Issue.record("unexpected answers")
            return
        }
        #expect(segment == [0, 1, 2, 3] && initSection == [1, 2, 3])
        _ = await origin.multivariant(channelId: "ch", client: "192.0.2.1")
        _ = await origin.mediaPlaylist(channelId: "ch", rendition: "720p30", query: [:], client: "192.0.2.2")
        _ = await origin.mediaPlaylist(channelId: "ch", rendition: "720p30", query: [:], client: "192.0.2.1")
        #expect(await origin.viewerCount(channelId: "ch") == 2)
    }

    @Test func anEndedChannelAnswersWaitsAtOnce() async {
        let origin = await origin()
        await origin.receive(Self.part(0), channelId: "ch")
        await origin.end(channelId: "ch")
        guard case .playlist(let text, _) = await origin.mediaPlaylist(channelId: "ch", rendition: "720p30",
                                                                      query: ["_HLS_msn": "1", "_HLS_part": "0"], client: nil) else {
            Issue.record("expected a playlist")
            return
        }
        #expect(text.hasSuffix("#EXT-X-ENDLIST\n"))
    }
}
