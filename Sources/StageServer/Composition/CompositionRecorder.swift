import Foundation
import StageHLS

/// The s3 destination: records a composition as HLS under its recording prefix, laid out as
/// IVS lays out composite recordings —
/// `events/recording-started.json`, `media/hls/multivariant.m3u8`,
/// `media/hls/<rendition>/playlist.m3u8` with `init-N.mp4` and `N.mp4` segments,
/// `media/thumbnails/<w>x<h>/thumbN.jpg` (or `media/latest_thumbnail/<w>x<h>/thumb.jpg`), and `events/recording-ended.json` at the end,
/// when the playlists become VOD (EXT-X-ENDLIST). Segments gather the compositor's segments
/// until they last `targetSegmentDurationSeconds`.
final class CompositionRecorder {
    private struct Track {
        var name: String
        var directory: URL
        var playlist: HLSRecordingPlaylist
        var initURI: String?
        var generation = 0
        var open = Data()
        var openDuration = 0.0
        var openProgramDate: Int64 = 0
        var openDiscontinuity = false
        var pendingDiscontinuity = false
        var size: String
        var thumbnails = 0
    }

    let directory: URL
    let thumbnailStorage: [String]
    private var tracks: [Track]
    private let variants: HLSMultivariantPlaylist
    private(set) var ended = false

    /// - Parameter thumbnailStorage: "SEQUENTIAL" keeps every thumbnail, "LATEST" only the newest.
    init(directory: URL, renditions: [HLSChannelFeed.RenditionInfo], targetSegmentDuration: Double,
         thumbnailStorage: [String] = ["SEQUENTIAL"]) throws {
        self.directory = directory
        self.thumbnailStorage = thumbnailStorage
        let fm = FileManager.default
        try fm.createDirectory(at: directory.appendingPathComponent("events"), withIntermediateDirectories: true)
        tracks = try renditions.map { info in
            let hls = directory.appendingPathComponent("media/hls/\(info.name)")
            try fm.createDirectory(at: hls, withIntermediateDirectories: true)
            return Track(name: info.name, directory: hls, playlist: HLSRecordingPlaylist(segmentTarget: targetSegmentDuration),
                         size: "\(info.width)x\(info.height)")
        }
        variants = HLSMultivariantPlaylist(variants: renditions.map {
            .init(uri: "\($0.name)/playlist.m3u8", bandwidth: $0.bandwidth, codecs: "avc1.64001f,mp4a.40.2",
                  width: $0.width, height: $0.height, frameRate: $0.frameRate)
        })
        try writeEvent("recording-started")
    }

    /// Takes one chunk of the compositor's output. Throws when the disk refuses it.
    func receive(_ chunk: HLSChunk) throws {
        guard !ended, tracks.indices.contains(chunk.rendition) else { return }
        var track = tracks[chunk.rendition]
        defer { tracks[chunk.rendition] = track }
        switch chunk.kind {
        case .initialization:
            try closeSegment(&track)
            if track.generation > 0 { track.pendingDiscontinuity = true }
            track.generation += 1
            let name = "init-\(track.generation).mp4"
            try Data(chunk.bytes).write(to: track.directory.appendingPathComponent(name))
            track.initURI = name
            if chunk.rendition == 0, track.generation == 1 {
                var playlist = variants
                if let codecs = CMAFCodecs.avc1(initSection: chunk.bytes) {
                    for index in playlist.variants.indices { playlist.variants[index].codecs = "\(codecs),mp4a.40.2" }
                }
                try Data(playlist.render().utf8).write(to: directory.appendingPathComponent("media/hls/multivariant.m3u8"), options: .atomic)
            }
        case .part:
            guard track.initURI != nil else { return }
            if chunk.startsSegment && track.openDuration >= track.playlist.segmentTarget - 0.01 { try closeSegment(&track) }
            if track.open.isEmpty {
                track.openProgramDate = chunk.programDateMillis
                track.openDiscontinuity = track.pendingDiscontinuity
                track.pendingDiscontinuity = false
            }
            track.open.append(contentsOf: chunk.bytes)
            track.openDuration += chunk.duration
        case .thumbnail:
            let fm = FileManager.default
            if thumbnailStorage.contains("SEQUENTIAL") {
                let folder = directory.appendingPathComponent("media/thumbnails/\(track.size)")
                try fm.createDirectory(at: folder, withIntermediateDirectories: true)
                try Data(chunk.bytes).write(to: folder.appendingPathComponent("thumb\(track.thumbnails).jpg"))
            }
            if thumbnailStorage.contains("LATEST") {
                let folder = directory.appendingPathComponent("media/latest_thumbnail/\(track.size)")
                try fm.createDirectory(at: folder, withIntermediateDirectories: true)
                try Data(chunk.bytes).write(to: folder.appendingPathComponent("thumb.jpg"), options: .atomic)
            }
            track.thumbnails += 1
        case .end:
            try closeSegment(&track)
        }
    }

    /// The compositor is gone: what is open is kept, the next part begins after a discontinuity.
    func producerLost() throws {
        for index in tracks.indices {
            try closeSegment(&tracks[index])
            tracks[index].pendingDiscontinuity = true
        }
    }

    /// Completes the recording: the last segment, VOD playlists, `recording-ended.json`.
    func finish() throws {
        guard !ended else { return }
        for index in tracks.indices {
            try closeSegment(&tracks[index])
            tracks[index].playlist.ended = true
            try writePlaylist(tracks[index])
        }
        ended = true
        try writeEvent("recording-ended")
    }

    private func closeSegment(_ track: inout Track) throws {
        guard !track.open.isEmpty, let initURI = track.initURI else { return }
        let name = "\(track.playlist.entries.count).mp4"
        try track.open.write(to: track.directory.appendingPathComponent(name))
        track.playlist.entries.append(.init(uri: name, duration: track.openDuration, initURI: initURI,
                                            discontinuity: track.openDiscontinuity, programDateMillis: track.openProgramDate))
        track.open = Data()
        track.openDuration = 0
        try writePlaylist(track)
    }

    private func writePlaylist(_ track: Track) throws {
        try Data(track.playlist.render().utf8).write(to: track.directory.appendingPathComponent("playlist.m3u8"), options: .atomic)
    }

    private func writeEvent(_ name: String) throws {
        let event: [String: Any] = ["version": "v1", "recording_status": name == "recording-started" ? "RECORDING_STARTED" : "RECORDING_ENDED",
                                    "timestamp": ISO8601DateFormatter().string(from: Date()),
                                    "media": ["hls": ["path": "media/hls", "playlist": "multivariant.m3u8"]]]
        let data = try JSONSerialization.data(withJSONObject: event, options: [.sortedKeys, .prettyPrinted])
        try data.write(to: directory.appendingPathComponent("events/\(name).json"), options: .atomic)
    }
}
