import Foundation
import StageMedia

/// A part or segment as the benchmark's HLS client received it.
struct FetchedMedia: Sendable {
    var key: MediaKey
    var bytes: [UInt8]
    /// Monotonic µs (`MediaClock`) when its last byte had arrived.
    var availableMicros: UInt64
    /// Fetched as soon as a playlist first listed it (false: the backlog of the first playlist).
    var live: Bool
}

/// The live edge a player loading the playlist at `atMicros` would see: the last part (LOW)
/// or the last complete segment (NORMAL) listed.
struct EdgeObservation: Sendable {
    var atMicros: UInt64
    var last: MediaKey
}

/// What one client session recorded from a rendition.
struct HLSRecording: Sendable {
    var initSection: [UInt8] = []
    var media: [FetchedMedia] = []
    var edges: [EdgeObservation] = []
    /// How far behind the edge a player starts: PART-HOLD-BACK (LOW) or 3 × EXT-X-TARGETDURATION
    /// (NORMAL; RFC 8216bis §6.3.3, the classic playlist states no HOLD-BACK).
    var holdBack = 0.0
    var startedMicros: UInt64 = 0
    var endedMicros: UInt64 = 0
    /// Blocking reloads (LOW) or polls (NORMAL) made.
    var reloads = 0
}

/// An HLS client that records when each part or segment became available to it.
///
/// - LOW (LL-HLS): blocking playlist reloads on the preload hint's `_HLS_msn`/`_HLS_part`;
///   every part a reload newly lists is fetched at once, in order.
/// - NORMAL (classic): the playlist is polled every 100 ms (much more often than a player's
///   one reload per target duration, so the time measured is when the origin listed the
///   segment); every newly listed segment is fetched at once.
enum ComposeHLSClient {
    static func recordLowLatency(media url: URL, seconds: Double) async throws -> HLSRecording {
        var recording = HLSRecording()
        var view = MediaPlaylistView(try await ComposeHTTP.text(url))
        recording.startedMicros = MediaClock.nowMicros()
        recording.initSection = try await initSection(view, url)
        guard let holdBack = view.partHoldBack else { throw BenchError("\(url): no PART-HOLD-BACK (not a LOW channel?)") }
        recording.holdBack = holdBack
        var known = Set<MediaKey>()
        try await absorb(view, keys: view.parts, live: false, url: url, into: &recording, known: &known)
        let deadline = recording.startedMicros + UInt64(seconds * 1e6)
        while MediaClock.nowMicros() < deadline, !view.ended {
            guard let hint = view.preloadHint, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
                throw BenchError("\(url): no EXT-X-PRELOAD-HINT")
            }
            components.queryItems = [URLQueryItem(name: "_HLS_msn", value: "\(hint.msn)"), URLQueryItem(name: "_HLS_part", value: "\(hint.part)")]
            let (body, status) = try await ComposeHTTP.get(components.url!, timeout: 10)
            guard status == 200 else { throw BenchError("blocking reload \(hint) → \(status): \(String(decoding: body.prefix(200), as: UTF8.self))") }
            recording.reloads += 1
            view = MediaPlaylistView(String(decoding: body, as: UTF8.self))
            try await absorb(view, keys: view.parts, live: true, url: url, into: &recording, known: &known)
        }
        recording.endedMicros = MediaClock.nowMicros()
        return recording
    }

    static func recordClassic(media url: URL, seconds: Double) async throws -> HLSRecording {
        var recording = HLSRecording()
        var view = MediaPlaylistView(try await ComposeHTTP.text(url))
        recording.startedMicros = MediaClock.nowMicros()
        recording.initSection = try await initSection(view, url)
        recording.holdBack = 3 * view.targetDuration
        var known = Set<MediaKey>()
        try await absorb(view, keys: view.segments, live: false, url: url, into: &recording, known: &known)
        let deadline = recording.startedMicros + UInt64(seconds * 1e6)
        while MediaClock.nowMicros() < deadline, !view.ended {
            try await Task.sleep(for: .milliseconds(100))
            view = MediaPlaylistView(try await ComposeHTTP.text(url))
            recording.reloads += 1
            try await absorb(view, keys: view.segments, live: true, url: url, into: &recording, known: &known)
        }
        recording.endedMicros = MediaClock.nowMicros()
        return recording
    }

    private static func initSection(_ view: MediaPlaylistView, _ url: URL) async throws -> [UInt8] {
        guard let map = view.mapURI else { throw BenchError("\(url): no EXT-X-MAP") }
        return try await ComposeHTTP.fetch(url.deletingLastPathComponent().appendingPathComponent(map))
    }

    /// Notes the edge the playlist shows, then fetches the keys not seen before.
    private static func absorb(_ view: MediaPlaylistView, keys: [MediaKey], live: Bool, url: URL,
                               into recording: inout HLSRecording, known: inout Set<MediaKey>) async throws {
        if let last = keys.last { recording.edges.append(EdgeObservation(atMicros: MediaClock.nowMicros(), last: last)) }
        for key in keys where !known.contains(key) {
            known.insert(key)
            let bytes = try await ComposeHTTP.fetch(url.deletingLastPathComponent().appendingPathComponent(MediaPlaylistView.uri(key)))
            recording.media.append(FetchedMedia(key: key, bytes: bytes, availableMicros: MediaClock.nowMicros(), live: live))
        }
    }

    /// The URL of the variant whose URI contains `name` (e.g. "720p"), from the master playlist.
    static func variant(_ master: URL, named name: String) async throws -> URL {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if let answer = try? await ComposeHTTP.get(master), answer.status == 200,
               let line = String(decoding: answer.body, as: UTF8.self).split(separator: "\n").first(where: { !$0.hasPrefix("#") && $0.contains(name) }) {
                return master.deletingLastPathComponent().appendingPathComponent(String(line))
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw BenchError("\(master): no \(name) variant within 20 s")
    }

    /// Waits (bounded) until the media playlist lists `count` complete segments.
    static func waitForSegments(_ media: URL, count: Int, timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let answer = try? await ComposeHTTP.get(media), answer.status == 200,
               MediaPlaylistView(String(decoding: answer.body, as: UTF8.self)).segments.count >= count { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw BenchError("\(media): fewer than \(count) segments after \(timeout)")
    }
}
