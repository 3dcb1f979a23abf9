import Testing
@testable import StageHLS

@Suite struct HLSPlaylistTests {
    @Test func lowLatencyPlaylistCarriesTheTags() {
        var feeder = PartFeeder()
        feeder.start()
        feeder.feed(6 * 4 + 2)
        let writer = HLSMediaPlaylist(mode: .lowLatency(partTarget: 1.0 / 3), segmentTarget: 2)
        let text = writer.render(feeder.rendition, reports: [.init(uri: "../1/index.m3u8", last: .init(sequence: 4, part: 1))])
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first == "#EXTM3U")
        #expect(lines.contains("#EXT-X-TARGETDURATION:2"))
        #expect(lines.contains("#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=1.00000,HOLD-BACK=6.00000"))
        #expect(lines.contains("#EXT-X-PART-INF:PART-TARGET=0.33333"))
        #expect(lines.contains("#EXT-X-MEDIA-SEQUENCE:1"))
        #expect(lines.contains("#EXT-X-MAP:URI=\"init-1.mp4\""))
        #expect(lines.contains("#EXT-X-PART:DURATION=0.33333,URI=\"4.0.m4s\",INDEPENDENT=YES"))
        #expect(lines.contains("#EXT-X-PART:DURATION=0.33333,URI=\"4.1.m4s\""))
        #expect(lines.last(where: { $0.hasPrefix("#EXT-X-PRELOAD-HINT") }) == "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"4.2.m4s\"")
        #expect(lines.contains("#EXT-X-RENDITION-REPORT:URI=\"../1/index.m3u8\",LAST-MSN=4,LAST-PART=1"))
        #expect(lines.contains("#EXTINF:2.00000,"))
        #expect(lines.contains("3.m4s") && !lines.contains("4.m4s"))
        // Parts are listed only for the last three target durations.
        #expect(!lines.contains(where: { $0.contains("URI=\"1.0.m4s\"") }))
        #expect(lines.filter { $0.hasPrefix("#EXT-X-PROGRAM-DATE-TIME:2023-11-14T22:13:") }.count == 4)
    }

    @Test func classicPlaylistHasNoParts() {
        var feeder = PartFeeder()
        feeder.start()
        feeder.feed(13)
        let text = HLSMediaPlaylist(mode: .classic, segmentTarget: 2).render(feeder.rendition)
        #expect(!text.contains("EXT-X-PART"))
        #expect(!text.contains("PRELOAD-HINT"))
        #expect(text.contains("#EXTINF:2.00000,\n0.m4s\n"))
        #expect(text.contains("#EXTINF:2.00000,\n1.m4s\n"))
        #expect(!text.contains("2.m4s"))
    }

    @Test func endedPlaylistEndsWithEndlist() {
        var feeder = PartFeeder()
        feeder.start()
        feeder.feed(3)
        feeder.rendition.end()
        let text = HLSMediaPlaylist(mode: .lowLatency(partTarget: 1.0 / 3), segmentTarget: 2).render(feeder.rendition)
        #expect(text.hasSuffix("#EXT-X-ENDLIST\n"))
        #expect(!text.contains("PRELOAD-HINT"))
        #expect(text.contains("#EXTINF:1.00000,\n0.m4s"))
    }

    @Test func multivariantListsEveryRendition() {
        let text = HLSMultivariantPlaylist(variants: [
            .init(uri: "0/index.m3u8", bandwidth: 2_700_000, codecs: "avc1.64001f,mp4a.40.2", width: 1280, height: 720, frameRate: 30),
            .init(uri: "1/index.m3u8", bandwidth: 950_000, codecs: "avc1.64001e,mp4a.40.2", width: 640, height: 360, frameRate: 30),
        ]).render()
        #expect(text.contains("#EXT-X-STREAM-INF:BANDWIDTH=2700000,CODECS=\"avc1.64001f,mp4a.40.2\",RESOLUTION=1280x720,FRAME-RATE=30.000\n0/index.m3u8\n"))
        #expect(text.contains("RESOLUTION=640x360"))
    }

    @Test func avc1FromAnInitSection() {
        let initSection: [UInt8] = [0, 0, 0, 20] + Array("avcC".utf8) + [1, 0x64, 0x00, 0x1F, 0xFF]
        #expect(CMAFCodecs.avc1(initSection: initSection) == "avc1.64001f")
        #expect(CMAFCodecs.avc1(initSection: [1, 2, 3]) == nil)
    }

    @Test func recordingBecomesVODWhenEnded() {
        var playlist = HLSRecordingPlaylist(segmentTarget: 6)
        playlist.entries = [.init(uri: "0.mp4", duration: 6, initURI: "init-1.mp4", discontinuity: false, programDateMillis: 0),
                            .init(uri: "1.mp4", duration: 2.5, initURI: "init-2.mp4", discontinuity: true, programDateMillis: 6000)]
        #expect(playlist.render().contains("#EXT-X-PLAYLIST-TYPE:EVENT"))
        playlist.ended = true
        let text = playlist.render()
        #expect(text.contains("#EXT-X-PLAYLIST-TYPE:VOD"))
        #expect(text.contains("#EXT-X-DISCONTINUITY\n#EXT-X-MAP:URI=\"init-2.mp4\""))
        #expect(text.hasSuffix("#EXT-X-ENDLIST\n"))
    }
}
