import Foundation
import StageHLS

/// Serves the channels compositors feed: playlists (blocking reloads per RFC 8216bis §6.2.5.2),
/// init sections, parts and segments, from memory. One actor for all channels; a request that
/// waits holds a continuation, resumed when a part arrives or its deadline passes.
actor HLSOrigin {
    enum Answer: Sendable {
        case playlist(String, blocking: Bool)
        case media([UInt8], contentType: String)
        case badRequest(String)
        case notFound(String)
        /// The wait ran out (503): the producer did not deliver in time.
        case unavailable(String)
    }

    struct Limits: Sendable {
        /// Blocking requests held at once, over all channels; more get 503 at once.
        var maxWaiters = 4096
    }

    private var feeds: [String: HLSChannelFeed] = [:]
    private var waiters: [UInt64: Waiter] = [:]
    private var nextWaiter: UInt64 = 0
    private var viewers: [String: [String: ContinuousClock.Instant]] = [:]
    let limits: Limits

    private struct Waiter {
        var channelId: String
        var ready: @Sendable (HLSChannelFeed) -> Bool
        var continuation: CheckedContinuation<Bool, Never>
    }

    init(limits: Limits = Limits()) { self.limits = limits }

    // MARK: Producer side

    func open(channelId: String, feed: HLSChannelFeed) {
        feeds[channelId] = feed
        wake(channelId)
    }

    func receive(_ chunk: HLSChunk, channelId: String) {
        guard feeds[channelId] != nil else { return }
        feeds[channelId]?.apply(chunk)
        wake(channelId)
    }

    func producerLost(channelId: String) {
        feeds[channelId]?.producerLost()
        wake(channelId)
    }

    /// The composition feeding the channel ended: playlists get EXT-X-ENDLIST; the channel is
    /// offline and the next composition starts a fresh feed.
    func end(channelId: String) {
        feeds[channelId]?.end()
        wake(channelId)
    }

    func remove(channelId: String) {
        feeds[channelId] = nil
        viewers[channelId] = nil
        wake(channelId)
    }

    func isLive(channelId: String) -> Bool { feeds[channelId]?.live ?? false }

    /// Distinct client addresses that fetched a playlist in the last 30 s.
    func viewerCount(channelId: String) -> Int {
        let horizon = ContinuousClock.now - .seconds(30)
        return viewers[channelId]?.values.filter { $0 > horizon }.count ?? 0
    }

    // MARK: HTTP side

    func multivariant(channelId: String, client: String?) -> Answer {
        guard let feed = feeds[channelId] else { return .notFound("channel \(channelId) is not live") }
        noteViewer(channelId, client)
        return .playlist(feed.multivariant(), blocking: false)
    }

    func mediaPlaylist(channelId: String, rendition name: String, query: [String: String], client: String?) async -> Answer {
        guard let feed = feeds[channelId], let index = feed.renditionIndex(named: name) else {
            return .notFound("no rendition \(name) on channel \(channelId)")
        }
        noteViewer(channelId, client)
        let request = HLSBlockingRequest.parse(query: query, last: feed.renditions[index].lastPosition, partTarget: feed.partTarget)
        switch request {
        case .immediate:
            return .playlist(feed.mediaPlaylist(index), blocking: false)
        case .badRequest(let reason):
            return .badRequest(reason)
        case .wait(let sequence, let part):
            let deadline = Double(feed.playlist.targetDuration(feed.renditions[index])) * 3
            let ready = await waitUntil(channelId: channelId, seconds: deadline) { $0.renditions.indices.contains(index) && $0.renditions[index].satisfies(sequence: sequence, part: part) }
            guard ready, let current = feeds[channelId], current.renditions.indices.contains(index) else {
                return .unavailable("_HLS_msn=\(sequence)\(part.map { "&_HLS_part=\($0)" } ?? ""): not produced within \(Int(deadline)) s")
            }
            return .playlist(current.mediaPlaylist(index), blocking: true)
        }
    }

    /// `init-N.mp4`, `S.m4s` (a whole segment) or `S.P.m4s` (a part). A request for the part the
    /// playlist hints at waits for it (RFC 8216bis §6.2.6).
    func media(channelId: String, rendition name: String, file: String) async -> Answer {
        guard let feed = feeds[channelId], let index = feed.renditionIndex(named: name) else {
            return .notFound("no rendition \(name) on channel \(channelId)")
        }
        guard let resource = HLSResourceName(file) else { return .notFound("\(file): not a resource of this channel") }
        switch resource {
        case .initSection(let generation):
            guard let bytes = feed.renditions[index].initSections[generation] else { return .notFound("\(file): no such init section") }
            return .media(bytes, contentType: "video/mp4")
        case .segment(let sequence):
            guard let segment = feed.renditions[index].segment(sequence), segment.isComplete else {
                return .notFound("\(file): segment \(sequence) is not (or no longer) available")
            }
            return .media(segment.bytes, contentType: "video/iso.segment")
        case .part(let position):
            if let part = feed.renditions[index].part(position) { return .media(part.bytes, contentType: "video/iso.segment") }
            guard let next = feed.renditions[index].nextPosition, position == next || (position.sequence == next.sequence + 1 && position.part == 0) else {
                return .notFound("\(file): part not available")
            }
            let deadline = Double(feed.playlist.targetDuration(feed.renditions[index])) * 3
            let ready = await waitUntil(channelId: channelId, seconds: deadline) { $0.renditions.indices.contains(index) && $0.renditions[index].part(position) != nil }
            guard ready, let part = feeds[channelId]?.renditions[index].part(position) else {
                return .unavailable("\(file): not produced within \(Int(deadline)) s")
            }
            return .media(part.bytes, contentType: "video/iso.segment")
        }
    }

    // MARK: Waiting

    private func waitUntil(channelId: String, seconds: Double, _ ready: @escaping @Sendable (HLSChannelFeed) -> Bool) async -> Bool {
        if let feed = feeds[channelId], ready(feed) { return true }
        guard waiters.count < limits.maxWaiters else { return false }
        nextWaiter += 1
        let id = nextWaiter
        let timeout = Task { [weak self] in
            try? await Task.sleep(for: .seconds(seconds))
            await self?.expire(id)
        }
        let satisfied = await withCheckedContinuation { continuation in
            waiters[id] = Waiter(channelId: channelId, ready: ready, continuation: continuation)
        }
        timeout.cancel()
        return satisfied
    }

    private func expire(_ id: UInt64) {
        waiters.removeValue(forKey: id)?.continuation.resume(returning: false)
    }

    private func wake(_ channelId: String) {
        let feed = feeds[channelId]
        for (id, waiter) in waiters where waiter.channelId == channelId {
            guard let feed else {
                waiters.removeValue(forKey: id)?.continuation.resume(returning: false)
                continue
            }
            if waiter.ready(feed) { waiters.removeValue(forKey: id)?.continuation.resume(returning: true) }
        }
    }

    private func noteViewer(_ channelId: String, _ client: String?) {
        guard let client else { return }
        let now = ContinuousClock.now
        var seen = viewers[channelId, default: [:]]
        if seen.count > 10_000 { seen = seen.filter { $0.value > now - .seconds(30) } }
        seen[client] = now
        viewers[channelId] = seen
    }
}
