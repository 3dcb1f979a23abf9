import Foundation
import StageHLS

/// What the origin knows of one channel fed by a compositor: its renditions' windows and the
/// multivariant playlist's facts.
struct HLSChannelFeed: Sendable {
    struct RenditionInfo: Sendable, Equatable {
        /// The URI path element, e.g. `720p30`.
        var name: String
        var width: Int
        var height: Int
        var frameRate: Double
        /// Video + audio bits per second (BANDWIDTH).
        var bandwidth: Int
    }

    let renditionInfo: [RenditionInfo]
    let playlist: HLSMediaPlaylist
    var renditions: [HLSLiveRendition]
    var codecs: [String?]
    var startTime: Date?
    var live = false

    init(renditions: [RenditionInfo], lowLatency: Bool, partTarget: Double, segmentTarget: Double, windowSegments: Int) {
        renditionInfo = renditions
        playlist = HLSMediaPlaylist(mode: lowLatency ? .lowLatency(partTarget: partTarget) : .classic, segmentTarget: segmentTarget)
        self.renditions = renditions.map { _ in HLSLiveRendition(windowSegments: windowSegments) }
        codecs = renditions.map { _ in nil }
    }

    var partTarget: Double? {
        if case .lowLatency(let target) = playlist.mode { return max(target, renditions.map(\.longestPart).max() ?? 0) }
        return nil
    }

    mutating func apply(_ chunk: HLSChunk) {
        guard renditions.indices.contains(chunk.rendition) else { return }
        switch chunk.kind {
        case .initialization:
            renditions[chunk.rendition].setInitSection(chunk.bytes)
            codecs[chunk.rendition] = CMAFCodecs.avc1(initSection: chunk.bytes)
        case .part:
            renditions[chunk.rendition].append(chunk)
            if !live {
                live = true
                startTime = startTime ?? Date()
            }
        case .end:
            renditions[chunk.rendition].end()
        case .thumbnail:
            break
        }
    }

    /// The producer is gone (crashed or stopped): open segments are closed as they stand.
    mutating func producerLost() {
        for index in renditions.indices { renditions[index].markDiscontinuity() }
    }

    mutating func end() {
        for index in renditions.indices { renditions[index].end() }
        live = false
    }

    func multivariant() -> String {
        HLSMultivariantPlaylist(variants: renditionInfo.enumerated().map { index, info in
            .init(uri: "\(info.name)/index.m3u8", bandwidth: info.bandwidth, codecs: "\(codecs[index] ?? "avc1.64001f"),mp4a.40.2",
                  width: info.width, height: info.height, frameRate: info.frameRate)
        }).render()
    }

    func mediaPlaylist(_ index: Int) -> String {
        let reports = renditionInfo.indices.filter { $0 != index }.compactMap { other in
            renditions[other].lastPosition.map { HLSMediaPlaylist.RenditionReport(uri: "../\(renditionInfo[other].name)/index.m3u8", last: $0) }
        }
        return playlist.render(renditions[index], reports: reports)
    }

    func renditionIndex(named name: String) -> Int? { renditionInfo.firstIndex { $0.name == name } }
}
