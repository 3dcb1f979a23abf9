// libFuzzer target for the signaling parsers: client and server message decoding, the token
// claim reader and base64url. Built by scripts/fuzz.sh with `swiftc -sanitize=fuzzer`.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSignaling(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Data(bytes: start, count: count)
    let text = String(decoding: bytes, as: UTF8.self)
    let codec = SignalCodec()
    if let message = try? codec.decodeClient(text) {
        // Whatever decodes must encode and decode to the same value.
        guard let again = try? codec.decodeClient(codec.encode(message)), again == message else { fatalError("client round trip") }
    }
    if let message = try? codec.decodeServer(text) {
        guard let again = try? codec.decodeServer(codec.encode(message)), again == message else { fatalError("server round trip") }
    }
    _ = try? ParticipantTokenClaims.decodeUnverified(text)
    _ = Base64URL.decode(text)
    return 0
}
