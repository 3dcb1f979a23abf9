// libFuzzer target for the signaling parsers: client and server message decoding (the fast path
// against Foundation's `Codable` definition), the token claim reader and base64url.
// Built by scripts/fuzz.sh with `swiftc -sanitize=fuzzer`.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSignaling(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Data(bytes: start, count: count)
    let text = String(decoding: bytes, as: UTF8.self)
    let codec = SignalCodec()
    // The fast path may decline what Foundation reads, never read what Foundation refuses or read it differently.
    if let fast = try? ClientMessage(fastJSON: text) {
        guard let reference: ClientMessage = try? codec.foundationDecode(text), reference == fast else { fatalError("client fast path differs") }
    }
    if let fast = try? ServerMessage(fastJSON: text) {
        guard let reference: ServerMessage = try? codec.foundationDecode(text), reference == fast else { fatalError("server fast path differs") }
    }
    if let message = try? codec.decodeClient(text) {
        // Whatever decodes must encode as Foundation does, and decode to the same value.
        guard codec.encode(message) == (try! codec.foundationEncode(message)) else { fatalError("client encoding differs") }
        guard let again = try? codec.decodeClient(codec.encode(message)), again == message else { fatalError("client round trip") }
    }
    if let message = try? codec.decodeServer(text) {
        guard codec.encode(message) == (try! codec.foundationEncode(message)) else { fatalError("server encoding differs") }
        guard let again = try? codec.decodeServer(codec.encode(message)), again == message else { fatalError("server round trip") }
    }
    _ = try? ParticipantTokenClaims.decodeUnverified(text)
    _ = Base64URL.decode(text)
    return 0
}
