import Foundation

/// A part or segment of a rendition: media sequence number and part index (-1: a whole segment).
struct MediaKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    var msn: Int
    var part: Int
    static func < (a: MediaKey, b: MediaKey) -> Bool { (a.msn, a.part) < (b.msn, b.part) }
    var description: String { part < 0 ? "\(msn)" : "\(msn).\(part)" }
}

/// What the benchmark reads from a media playlist (the server's own format: parts
/// `<msn>.<part>.m4s`, segments `<msn>.m4s`, init `init-<n>.mp4`).
struct MediaPlaylistView {
    let text: String
    let lines: [Substring]

    init(_ text: String) {
        self.text = text
        lines = text.split(separator: "\n")
    }

    private func attribute(_ tag: String, _ name: String) -> String? {
        guard let line = lines.last(where: { $0.hasPrefix(tag) }) else { return nil }
        for item in line.dropFirst(tag.count).split(separator: ",") {
            let pair = item.split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0] == name { return String(pair[1]).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        }
        return nil
    }

    var targetDuration: Double { lines.first { $0.hasPrefix("#EXT-X-TARGETDURATION:") }.flatMap { Double($0.split(separator: ":")[1]) } ?? 2 }
    var partHoldBack: Double? { attribute("#EXT-X-SERVER-CONTROL:", "PART-HOLD-BACK").flatMap(Double.init) }
    var partTarget: Double? { attribute("#EXT-X-PART-INF:", "PART-TARGET").flatMap(Double.init) }
    var mapURI: String? { attribute("#EXT-X-MAP:", "URI") }
    var ended: Bool { text.contains("#EXT-X-ENDLIST") }

    /// The parts listed, in order.
    var parts: [MediaKey] {
        lines.filter { $0.hasPrefix("#EXT-X-PART:") }.compactMap { line in
            guard let range = line.range(of: "URI=\"") else { return nil }
            return Self.key(line[range.upperBound...].prefix { $0 != "\"" })
        }
    }

    /// The complete segments listed, in order.
    var segments: [MediaKey] { lines.filter { !$0.hasPrefix("#") }.compactMap { Self.key($0) } }

    /// The complete segments with their EXT-X-PROGRAM-DATE-TIME (seconds since 1970).
    var datedSegments: [(key: MediaKey, start: Double)] {
        var result: [(MediaKey, Double)] = []
        var date: Double?
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for line in lines {
            if line.hasPrefix("#EXT-X-PROGRAM-DATE-TIME:") {
                date = parser.date(from: String(line.dropFirst("#EXT-X-PROGRAM-DATE-TIME:".count)))?.timeIntervalSince1970
            } else if !line.hasPrefix("#"), let key = Self.key(line), let start = date {
                result.append((key, start))
            }
        }
        return result
    }

    /// The preload hint's part, which a blocking reload asks for.
    var preloadHint: MediaKey? {
        guard let line = lines.last(where: { $0.hasPrefix("#EXT-X-PRELOAD-HINT:") }), let range = line.range(of: "URI=\"") else { return nil }
        return Self.key(line[range.upperBound...].prefix { $0 != "\"" })
    }

    /// `12.m4s` → 12/-1, `12.3.m4s` → 12/3.
    static func key<S: StringProtocol>(_ uri: S) -> MediaKey? {
        guard uri.hasSuffix(".m4s") else { return nil }
        let numbers = uri.dropLast(4).split(separator: ".").compactMap { Int($0) }
        switch numbers.count {
        case 1: return MediaKey(msn: numbers[0], part: -1)
        case 2: return MediaKey(msn: numbers[0], part: numbers[1])
        default: return nil
        }
    }

    static func uri(_ key: MediaKey) -> String { "\(key).m4s" }
}
