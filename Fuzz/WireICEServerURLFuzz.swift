// libFuzzer target for StageWire's ICEServerURL (RFC 7064 §3.1, RFC 7065 §3.1): user input from
// `stage join --ice-server` and the SDK's StageICEConfiguration. Build and run with
// scripts/fuzz.sh (target `iceurl`).
//
// Checks, beyond "never crashes": a URL that parses prints in canonical form, and that form
// parses back to the same value with the same canonical text.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWireICEServerURL(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    guard let url = try? ICEServerURL(parsing: text) else { return 0 }
    guard let again = try? ICEServerURL(parsing: url.description) else { fatalError("canonical form \(url) does not parse") }
    guard again == url, again.description == url.description else { fatalError("canonical form of \(text) changes when parsed again") }
    guard !url.host.isEmpty, url.port > 0 else { fatalError("empty host or port 0 accepted from \(text)") }
    return 0
}
