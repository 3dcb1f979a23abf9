import StageSFU
import StageWire

/// Which producer of a publisher's new session takes over the subscribers of each producer of
/// the session it replaces (a publisher that reconnects its media), so that every subscriber
/// keeps its connection and sees one continuous stream of the same track.
///
/// A track is matched by its `a=msid` track id (RFC 8830 §2), which a sender keeps for the same
/// source across offers; failing that, by the same mid with the same kind. Each new producer
/// takes over at most one old one, and a pair is always of one kind. An old producer without a
/// match closes as it would have, and so do its subscribers' sessions.
enum PublisherHandOver {
    /// A sending media section of a publish offer, as the matching sees it.
    struct Track: Equatable, Sendable {
        var mid: String
        var kind: MediaKind
        /// The `a=msid` track id, when the offer names one.
        var trackID: String?
    }

    /// Old mid → new mid, for every old track that has a successor.
    /// - Parameters:
    ///   - old: the replaced session's tracks, in offer order (earlier ones match first).
    ///   - new: the new session's tracks.
    static func successors(of old: [Track], in new: [Track]) -> [String: String] {
        var pairs: [String: String] = [:]
        var taken = Set<String>()
        // First every track id, so a fallback by mid cannot take a section another track moved to.
        for track in old {
            guard let id = track.trackID,
                  let match = new.first(where: { $0.trackID == id && $0.kind == track.kind && !taken.contains($0.mid) }) else { continue }
            pairs[track.mid] = match.mid
            taken.insert(match.mid)
        }
        for track in old where pairs[track.mid] == nil {
            guard let match = new.first(where: { $0.mid == track.mid && $0.kind == track.kind }), !taken.contains(match.mid) else { continue }
            pairs[track.mid] = match.mid
            taken.insert(match.mid)
        }
        return pairs
    }
}
