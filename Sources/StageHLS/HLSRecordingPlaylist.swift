
/// A recording's media playlist (RFC 8216bis §4.4): EVENT while it grows, VOD with
/// EXT-X-ENDLIST once it ends, so it plays from start to end.
public struct HLSRecordingPlaylist: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var uri: String
        public var duration: Double
        public var initURI: String
        public var discontinuity: Bool
        public var programDateMillis: Int64
        public init(uri: String, duration: Double, initURI: String, discontinuity: Bool, programDateMillis: Int64) {
            self.uri = uri
            self.duration = duration
            self.initURI = initURI
            self.discontinuity = discontinuity
            self.programDateMillis = programDateMillis
        }
    }

    public var entries: [Entry] = []
    public var ended = false
    public var segmentTarget: Double

    public init(segmentTarget: Double) { self.segmentTarget = segmentTarget }

    public func render() -> String {
        let longest = entries.map(\.duration).max() ?? segmentTarget
        var lines = ["#EXTM3U", "#EXT-X-VERSION:6",
                     "#EXT-X-TARGETDURATION:\(max(Int(segmentTarget.rounded(.up)), Int(longest.rounded()), 1))",
                     "#EXT-X-PLAYLIST-TYPE:\(ended ? "VOD" : "EVENT")", "#EXT-X-MEDIA-SEQUENCE:0"]
        var currentInit: String?
        for entry in entries {
            if entry.discontinuity { lines.append("#EXT-X-DISCONTINUITY") }
            if entry.initURI != currentInit {
                lines.append("#EXT-X-MAP:URI=\"\(entry.initURI)\"")
                currentInit = entry.initURI
            }
            lines.append("#EXT-X-PROGRAM-DATE-TIME:\(HLSMediaPlaylist.programDate(entry.programDateMillis))")
            lines.append("#EXTINF:\(HLSMediaPlaylist.decimal(entry.duration)),")
            lines.append(entry.uri)
        }
        if ended { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
    }
}
