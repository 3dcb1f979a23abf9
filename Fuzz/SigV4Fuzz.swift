// libFuzzer target for StageSigV4: the Authorization header parser, the credential scope, the
// canonical request (method, path, query, headers, body), `precheck` and `verify`, in the order
// the control plane's APIResponder runs them (headers → precheck → body → verify(prechecked:)).
// APIResponder itself needs Hummingbird and is not compiled here; its request → header list step
// is mirrored (a `host` header from the authority). Crypto is Fuzz/Support/CryptoShim.swift, a
// plain-Swift SHA-256/HMAC checked against AWS's get-vanilla vector at start.
// Build and run with scripts/fuzz.sh (target `sigv4`).
//
// Input: byte 0 selects the check, bytes 1–4 a mutation (which part, where, xor), then fields split
// on NUL: method, path, query, body, host, then headers as `name:value`. Checks:
//  0 parse    — `SigV4Authorization.parse` of the raw text never crashes; a parsed value re-rendered
//               as the signer writes it parses to the same value.
//  1 precheck — `precheck` of fuzzed headers: success means every documented postcondition holds
//               (scope is ours, key known, date within skew and matching, host signed).
//  2 canon    — the canonical path and query are fixed points (canonicalising twice changes
//               nothing) and use only unreserved characters and %XX.
//  3 sign     — a request signed by `SigV4.sign` verifies (precheck + verify(prechecked:), as
//               APIResponder does), and after one byte of one part is changed, verify succeeds exactly when
//               the canonical request, the X-Amz-Date and the authorization are unchanged.
import Foundation

private let accessKey = "AKIDEXAMPLE"
private let secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
private let region = "us-east-1"
private let service = "ivs"
private func secretForKey(_ key: String) -> String? { key == accessKey ? secret : nil }
/// 2026-11-25T00:00:00Z.
private let baseDate = Date(timeIntervalSince1970: 1_795_564_800)

/// The crypto stand-in must give AWS's documented get-vanilla signature, or nothing here means anything.
private let selfCheck: Void = {
    let request = SigV4Request(method: "GET", path: "/", query: "",
                               headers: [(name: "Host", value: "example.amazonaws.com"), (name: "X-Amz-Date", value: "20150830T123600Z")],
                               body: [])
    let auth = SigV4Authorization(accessKeyId: "AKIDEXAMPLE", date: "20150830", region: "us-east-1", service: "service",
                                  signedHeaders: ["host", "x-amz-date"], signature: "")
    let signature = SigV4.computeSignature(request: request, authorization: auth, amzDate: "20150830T123600Z", secretAccessKey: secret)
    guard signature == "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31" else {
        fatalError("Fuzz/Support/CryptoShim.swift does not reproduce AWS's get-vanilla signature: \(signature)")
    }
}()

/// RFC 9110 token characters, what an HTTP server lets through as a field name.
private func isTokenByte(_ b: UInt8) -> Bool {
    (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || Array("!#$%&'*+-.^_`|~".utf8).contains(b)
}

private func text(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

private func render(_ a: SigV4Authorization) -> String {
    "AWS4-HMAC-SHA256 Credential=\(a.accessKeyId)/\(a.date)/\(a.region)/\(a.service)/aws4_request, SignedHeaders=\(a.signedHeaders.joined(separator: ";")), Signature=\(a.signature)"
}

private let unreservedOrPercent = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~%0123456789ABCDEF".utf8))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSigV4(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    _ = selfCheck
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard bytes.count >= 5 else { return 0 }
    let mode = bytes[0] % 4
    let (part, position, flip) = (Int(bytes[1]), Int(bytes[2]) << 8 | Int(bytes[3]), bytes[4] == 0 ? 1 : bytes[4])
    let rest = bytes[5...]
    switch mode {
    case 0: checkParse(text(rest))
    case 1: checkPrecheck(rest)
    case 2: checkCanonical(rest)
    default: checkSignVerify(rest, part: part, position: position, flip: flip)
    }
    return 0
}

private func checkParse(_ value: String) {
    guard case .success(let parsed) = SigV4Authorization.parse(value) else { return }
    guard case .success(let again) = SigV4Authorization.parse(render(parsed)), again == parsed else {
        fatalError("Authorization \(value.debugDescription) parses to \(parsed), whose rendering \(render(parsed).debugDescription) does not parse back")
    }
}

/// Header lines `name:value` (name as given, so precheck sees odd names and values too).
private func headerList(_ fields: [ArraySlice<UInt8>]) -> [(name: String, value: String)] {
    fields.map { field in
        guard let colon = field.firstIndex(of: UInt8(ascii: ":")) else { return (name: text(field), value: "") }
        return (name: text(field[..<colon]), value: text(field[(colon + 1)...]))
    }
}

private func checkPrecheck(_ rest: ArraySlice<UInt8>) {
    let headers = headerList(rest.split(separator: 0, omittingEmptySubsequences: false))
    // The clock is the fuzzed date when it parses, so the skew check is reached.
    let date = headers.first { $0.name.lowercased() == "x-amz-date" }.flatMap { SigV4.parseAmzDate($0.value) }
    let now = (date ?? baseDate).addingTimeInterval(Double(rest.count % 1900) - 950)
    guard case .success(let checked) = SigV4.precheck(headers: headers, secretForKey: secretForKey, now: now,
                                                      region: region, service: service) else { return }
    let auth = checked.authorization
    guard auth.region == region, auth.service == service, auth.accessKeyId == accessKey, checked.secret == secret,
          auth.signedHeaders.contains("host"), checked.amzDate.hasPrefix(auth.date),
          let signedAt = SigV4.parseAmzDate(checked.amzDate), abs(signedAt.timeIntervalSince(now)) <= 15 * 60,
          headers.contains(where: { $0.name.lowercased() == "x-amz-date" && $0.value == checked.amzDate }),
          case .success(let reparsed) = SigV4Authorization.parse(headers.first { $0.name.lowercased() == "authorization" }!.value),
          reparsed == auth
    else { fatalError("precheck accepted \(headers) but a postcondition fails: \(checked)") }
}

private func checkCanonical(_ rest: ArraySlice<UInt8>) {
    let fields = rest.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
    let path = text(fields[0]), query = fields.count > 1 ? text(fields[1]) : ""
    let canonicalPath = SigV4.canonicalPath(path)
    guard SigV4.canonicalPath(canonicalPath) == canonicalPath else {
        fatalError("canonical path of \(path.debugDescription) is \(canonicalPath.debugDescription), not a fixed point")
    }
    guard canonicalPath.utf8.allSatisfy({ unreservedOrPercent.contains($0) || $0 == UInt8(ascii: "/") }) else {
        fatalError("canonical path \(canonicalPath.debugDescription) has a reserved character")
    }
    let canonicalQuery = SigV4.canonicalQuery(query)
    guard SigV4.canonicalQuery(canonicalQuery) == canonicalQuery else {
        fatalError("canonical query of \(query.debugDescription) is \(canonicalQuery.debugDescription), not a fixed point")
    }
    guard canonicalQuery.utf8.allSatisfy({ unreservedOrPercent.contains($0) || $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: "&") }) else {
        fatalError("canonical query \(canonicalQuery.debugDescription) has a reserved character")
    }
}

private func checkSignVerify(_ rest: ArraySlice<UInt8>, part: Int, position: Int, flip: UInt8) {
    var fields = rest.split(separator: 0, omittingEmptySubsequences: false)
    while fields.count < 5 { fields.append([]) }
    // What an HTTP server can receive: a token method, field names of token characters, values without CR, LF or NUL.
    let method = String(decoding: fields[0].filter(isTokenByte), as: UTF8.self)
    var headers: [(name: String, value: String)] = [(name: "host", value: text(ArraySlice(fields[4].filter { $0 != 0x0D && $0 != 0x0A })))]
    for field in fields.dropFirst(5) {
        let colon = field.firstIndex(of: UInt8(ascii: ":")) ?? field.endIndex
        let name = field[..<colon].filter(isTokenByte)
        guard !name.isEmpty else { continue }
        let value = colon < field.endIndex ? field[(colon + 1)...].filter { $0 != 0x0D && $0 != 0x0A } : []
        headers.append((name: String(decoding: name, as: UTF8.self), value: text(ArraySlice(value))))
    }
    var request = SigV4Request(method: method.isEmpty ? "POST" : method, path: text(fields[1]), query: text(fields[2]),
                               headers: headers, body: Array(fields[3]))
    let signedAt = baseDate.addingTimeInterval(Double(position))
    SigV4.sign(&request, accessKeyId: accessKey, secretAccessKey: secret, region: region, service: service, date: signedAt)
    // The server's view: a header the signer did not sign may be added on the way (a proxy's).
    request.headers.append((name: "x-forwarded-for", value: "192.0.2.\(flip)"))
    let now = signedAt.addingTimeInterval(Double(Int(flip) - 128) * 7)  // within ±15 min
    guard case .success(let checked) = SigV4.precheck(headers: request.headers, secretForKey: secretForKey, now: now,
                                                      region: region, service: service) else {
        fatalError("precheck refuses a request SigV4.sign signed: \(request) — \(SigV4.precheck(headers: request.headers, secretForKey: secretForKey, now: now, region: region, service: service))")
    }
    guard case .success = SigV4.verify(request, prechecked: checked) else {
        fatalError("verify refuses a request SigV4.sign signed: \(request)")
    }

    // One byte of one part changed.
    var mutated = request
    func flipped(_ s: String) -> String {
        var utf8 = Array(s.utf8)
        guard !utf8.isEmpty else { return String(decoding: [flip], as: UTF8.self) }
        utf8[position % utf8.count] ^= flip
        return String(decoding: utf8, as: UTF8.self)
    }
    let headerIndex = mutated.headers.isEmpty ? 0 : position % mutated.headers.count
    switch part % 7 {
    case 0: mutated.method = flipped(mutated.method)
    case 1: mutated.path = flipped(mutated.path)
    case 2: mutated.query = flipped(mutated.query)
    case 3: if mutated.body.isEmpty { mutated.body = [flip] } else { mutated.body[position % mutated.body.count] ^= flip }
    case 4: mutated.headers[headerIndex].value = flipped(mutated.headers[headerIndex].value)
    case 5: mutated.headers[headerIndex].name = flipped(mutated.headers[headerIndex].name)
    default: mutated.headers.remove(at: headerIndex)
    }
    // precheck is a function of the headers and the clock: for a change outside the headers its result is
    // reused (DateFormatter parsing is most of the cost of an input); otherwise the full verify runs.
    let outcome = part % 7 <= 3 ? SigV4.verify(mutated, prechecked: checked)
        : SigV4.verify(mutated, secretForKey: secretForKey, now: now, region: region, service: service)
    let accepted: Bool
    switch outcome {
    case .success: accepted = true
    case .failure: accepted = false
    }
    // Unchanged in what the signature covers: the canonical request under the request's own SignedHeaders,
    // X-Amz-Date and the Authorization value.
    let original = checked.authorization
    func header(_ r: SigV4Request, _ name: String) -> [String] { r.headers.filter { $0.name.lowercased() == name }.map(\.value) }
    let same = SigV4.canonicalRequest(mutated, signedHeaders: original.signedHeaders) == SigV4.canonicalRequest(request, signedHeaders: original.signedHeaders)
        && header(mutated, "x-amz-date") == header(request, "x-amz-date")
        && header(mutated, "authorization") == header(request, "authorization")
    if accepted != same {
        fatalError("part \(part % 7) changed: verify \(accepted ? "accepts" : "refuses") but the signed content is \(same ? "the same" : "different")\n  signed:  \(request)\n  mutated: \(mutated)")
    }
}
