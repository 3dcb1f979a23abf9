// libFuzzer target for StageWire's SDP parser: whatever parses must serialize and parse back to
// an equal value, and every typed view must return without trapping. Build and run with
// scripts/fuzz.sh (swiftc -sanitize=fuzzer,address).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWireSDP(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let description = try? SessionDescription(parsingUTF8: bytes) else { return 0 }

    let text = description.serialized()
    // Writing CRLF where the input had LF may push a description over the byte limit.
    if text.utf8.count <= SessionDescription.maximumBytes {
        guard let again = try? SessionDescription(parsing: text) else { fatalError("serialized SDP does not parse:\n\(text)") }
        guard again == description else { fatalError("SDP round trip differs:\n\(text)") }
    }

    for container in [description.lines] + description.media.map(\.lines) {
        let section = MediaDescription(media: "x", formats: [], lines: container)
        _ = section.iceUfrag
        _ = section.icePwd
        _ = section.iceOptions
        _ = section.candidates.map(\.sdpValue)
        _ = section.fingerprints.map(\.sdpValue)
        _ = section.setup
        _ = section.groups
        _ = section.msids
        _ = section.direction
        _ = section.connection
        _ = section.extensionMaps.map(\.sdpValue)
        _ = section.ssrcAttributes.map(\.sdpValue)
        _ = section.ssrcGroups.map(\.sdpValue)
        _ = section.rids.map { ($0.payloadTypes, $0.maxWidth, $0.sdpValue) }
        _ = section.simulcast?.sdpValue
        _ = section.codecs
        // Typed values write text that reads back as the same value.
        for candidate in section.candidates {
            guard (try? SDPCandidate(sdpValue: candidate.sdpValue)) == candidate else { fatalError("candidate round trip") }
        }
        for rtpMap in section.rtpMaps {
            guard (try? SDPRTPMap(sdpValue: rtpMap.sdpValue)) == rtpMap else { fatalError("rtpmap round trip") }
        }
        if let simulcast = section.simulcast {
            guard (try? SDPSimulcast(sdpValue: simulcast.sdpValue)) == simulcast else { fatalError("simulcast round trip") }
        }
        for fingerprint in section.fingerprints {
            guard (try? SDPFingerprint(sdpValue: fingerprint.sdpValue)) == fingerprint else { fatalError("fingerprint round trip") }
        }
    }
    _ = description.origin
    _ = description.timing
    _ = description.media.map { ($0.mediaLineValue, $0.payloadTypes) }
    return 0
}
