import Foundation

/// Writes a rendition's media playlist (RFC 8216bis §4.4): live low-latency (parts, preload
/// hint, blocking reload, rendition reports), live classic (segments only), or a finished VOD.
public struct HLSMediaPlaylist: Sendable {
    public enum Mode: Sendable, Equatable {
        /// LL-HLS: EXT-X-PART-INF, EXT-X-PART, EXT-X-PRELOAD-HINT, CAN-BLOCK-RELOAD.
        case lowLatency(partTarget: Double)
        /// Classic sliding-window live playlist.
        case classic
    }

    /// Another rendition's last position, for EXT-X-RENDITION-REPORT (§4.4.5.4).
    public struct RenditionReport: Sendable, Equatable {
        public var uri: String
        public var last: HLSLiveRendition.Position
        public init(uri: String, last: HLSLiveRendition.Position) {
            self.uri = uri
            self.last = last
        }
    }

    public var mode: Mode
    /// The configured segment duration; EXT-X-TARGETDURATION is it rounded up, or the longest
    /// segment rounded (§4.4.3.1), whichever is larger.
    public var segmentTarget: Double
    public var initURI: @Sendable (Int) -> String = { "init-\($0).mp4" }
    public var segmentURI: @Sendable (Int) -> String = { "\($0).m4s" }
    public var partURI: @Sendable (HLSLiveRendition.Position) -> String = { "\($0.sequence).\($0.part).m4s" }

    public init(mode: Mode, segmentTarget: Double) {
        self.mode = mode
        self.segmentTarget = segmentTarget
    }

    public func targetDuration(_ rendition: HLSLiveRendition) -> Int {
        max(Int(segmentTarget.rounded(.up)), Int(rendition.longestSegment.rounded()), 1)
    }

    /// PART-HOLD-BACK: three part targets (the spec's floor is two; three rides out jitter).
    public static func partHoldBack(partTarget: Double) -> Double { 3 * partTarget }

    public func render(_ rendition: HLSLiveRendition, reports: [RenditionReport] = []) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:6"]
        let target = targetDuration(rendition)
        lines.append("#EXT-X-TARGETDURATION:\(target)")
        var partTarget: Double?
        if case .lowLatency(let configured) = mode {
            let part = max(configured, rendition.longestPart)
            partTarget = part
            lines.append("#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=\(Self.decimal(Self.partHoldBack(partTarget: part))),HOLD-BACK=\(Self.decimal(Double(3 * target)))")
            lines.append("#EXT-X-PART-INF:PART-TARGET=\(Self.decimal(part))")
        }
        lines.append("#EXT-X-MEDIA-SEQUENCE:\(rendition.mediaSequence)")
        if rendition.discontinuitySequence > 0 { lines.append("#EXT-X-DISCONTINUITY-SEQUENCE:\(rendition.discontinuitySequence)") }
        // Parts are listed for the segments that start within the last three target durations (§4.4.4.9).
        var partsFrom = Int.max
        if partTarget != nil {
            var span = 0.0
            for segment in rendition.segments.reversed() {
                span += segment.duration
                if span > Double(3 * target) + 0.001 && partsFrom != Int.max { break }
                partsFrom = segment.sequence
            }
        }
        var currentInit: Int?
        for segment in rendition.segments {
            if segment.discontinuity { lines.append("#EXT-X-DISCONTINUITY") }
            if segment.initGeneration != currentInit {
                lines.append("#EXT-X-MAP:URI=\"\(initURI(segment.initGeneration))\"")
                currentInit = segment.initGeneration
            }
            if segment.parts.isEmpty { continue }
            lines.append("#EXT-X-PROGRAM-DATE-TIME:\(Self.programDate(segment.programDateMillis))")
            if segment.sequence >= partsFrom {
                for (index, part) in segment.parts.enumerated() {
                    let uri = partURI(.init(sequence: segment.sequence, part: index))
                    lines.append("#EXT-X-PART:DURATION=\(Self.decimal(part.duration)),URI=\"\(uri)\"\(part.independent ? ",INDEPENDENT=YES" : "")")
                }
            }
            if segment.isComplete {
                lines.append("#EXTINF:\(Self.decimal(segment.duration)),")
                lines.append(segmentURI(segment.sequence))
            }
        }
        if partTarget != nil, let next = rendition.nextPosition {
            lines.append("#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"\(partURI(next))\"")
        }
        if partTarget != nil {
            for report in reports {
                lines.append("#EXT-X-RENDITION-REPORT:URI=\"\(report.uri)\",LAST-MSN=\(report.last.sequence),LAST-PART=\(report.last.part)")
            }
        }
        if rendition.ended { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Seconds with five decimals, as the duration attributes are written.
    static func decimal(_ value: Double) -> String { String(format: "%.5f", value) }

    /// ISO 8601 with milliseconds and `Z` (RFC 8216bis §4.4.4.6).
    static func programDate(_ millis: Int64) -> String {
        let date = Date(timeIntervalSince1970: Double(millis) / 1000)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let ms = Int(((millis % 1000) + 1000) % 1000)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", c.year ?? 1970, c.month ?? 1, c.day ?? 1,
                      c.hour ?? 0, c.minute ?? 0, c.second ?? 0, ms)
    }
}
