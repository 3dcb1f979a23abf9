// libFuzzer target for StageHLS: the compositor's chunk stream (header line + bytes, what the
// server reads from a compositor's stdout), the blocking-reload directives and resource names
// of RFC 8216bis (what any HTTP client sends to /hls/...). Build and run with scripts/fuzz.sh
// (target `hls`).
//
// Checks, beyond "never crashes": chunks that parse feed a rendition whose playlists render,
// name resources that resolve back to what was listed, and a directive that parses to a wait
// never asks for more than two segments past the last.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHLS(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    var reader = HLSChunkReader()
    var rendition = HLSLiveRendition(windowSegments: 3)
    // Split the input in two feeds to exercise partial headers and payloads.
    for slice in [bytes[..<(bytes.count / 2)], bytes[(bytes.count / 2)...]] {
        guard let chunks = try? reader.feed(slice) else { break }
        for chunk in chunks {
            switch chunk.kind {
            case .initialization: rendition.setInitSection(chunk.bytes)
            case .part: rendition.append(chunk)
            case .end: rendition.end()
            case .thumbnail: break
            }
        }
    }
    let playlist = HLSMediaPlaylist(mode: .lowLatency(partTarget: 1.0 / 3), segmentTarget: 2).render(rendition)
    for line in playlist.split(separator: "\n") where line.hasSuffix(".m4s") && !line.hasPrefix("#") {
        guard case .segment(let sequence)? = HLSResourceName(String(line)), rendition.segment(sequence) != nil else {
            fatalError("listed segment \(line) does not resolve")
        }
    }
    let text = String(decoding: bytes, as: UTF8.self)
    _ = HLSResourceName(text)
    var query: [String: String] = [:]
    for pair in text.split(separator: "&") {
        let parts = pair.split(separator: "=", maxSplits: 1)
        if parts.count == 2 { query[String(parts[0])] = String(parts[1]) }
    }
    let last = HLSLiveRendition.Position(sequence: 10, part: 2)
    if case .wait(let sequence, _) = HLSBlockingRequest.parse(query: query, last: last, partTarget: 1.0 / 3), sequence > 12 {
        fatalError("a wait for segment \(sequence), more than two past the last, was accepted")
    }
    return 0
}
