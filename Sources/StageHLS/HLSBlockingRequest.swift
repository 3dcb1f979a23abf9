/// A playlist request's delivery directives (RFC 8216bis §6.2.5.2): `_HLS_msn` and `_HLS_part`
/// ask the server to hold the playlist until that segment or part exists.
public enum HLSBlockingRequest: Equatable, Sendable {
    /// No directive: answer with the playlist as it is.
    case immediate
    /// Hold until `HLSLiveRendition.satisfies(sequence:part:)`.
    case wait(sequence: Int, part: Int?)
    /// Answer 400 at once, with this reason.
    case badRequest(String)

    /// Reads the directives from a decoded query.
    /// - Parameters:
    ///   - last: the rendition's last part; nil before the first.
    ///   - partTarget: the part target duration; nil for a classic playlist (no parts).
    public static func parse(query: [String: String], last: HLSLiveRendition.Position?, partTarget: Double?) -> HLSBlockingRequest {
        let msnText = query["_HLS_msn"]
        let partText = query["_HLS_part"]
        if msnText == nil && partText == nil { return .immediate }
        guard let msnText else { return .badRequest("_HLS_part: requires _HLS_msn") }
        guard let msn = Int(msnText), msn >= 0 else { return .badRequest("_HLS_msn: must be a non-negative integer, got '\(msnText)'") }
        var part: Int?
        if let partText {
            guard partTarget != nil else { return .badRequest("_HLS_part: this playlist has no parts") }
            guard let value = Int(partText), value >= 0 else { return .badRequest("_HLS_part: must be a non-negative integer, got '\(partText)'") }
            part = value
        }
        let lastSequence = last?.sequence ?? 0
        // More than two segments ahead of the last one is refused.
        if msn > lastSequence + 2 {
            return .badRequest("_HLS_msn: \(msn) is more than two segments past the last (\(lastSequence))")
        }
        // A part beyond the Advance Part Limit (3 / PART-TARGET parts when the target is under
        // a second, else 3) is refused. Past the last segment, the parts it may still get are
        // not counted, which errs on the side of waiting.
        if let part, let partTarget {
            let limit = partTarget < 1 ? Int((3 / partTarget).rounded(.up)) : 3
            let ahead = msn == lastSequence ? part - (last?.part ?? -1) : msn > lastSequence ? part + 1 : 0
            if ahead > limit {
                return .badRequest("_HLS_part: \(part) of segment \(msn) is more than \(limit) parts past the last part")
            }
        }
        return .wait(sequence: msn, part: part)
    }
}
