public import Foundation
internal import Crypto

/// AWS Signature Version 4 (the "Signature Version 4 signing process" of the AWS General
/// Reference): the canonical request, the string to sign and the derived signing key.
/// Used by the server to verify requests and by the CLI to sign them.
public struct SigV4Request: Sendable {
    public var method: String
    /// The path exactly as sent, percent-encoded, without the query.
    public var path: String
    /// The raw query string (without `?`), or empty.
    public var query: String
    /// Header names in any case; values as sent.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(method: String, path: String, query: String, headers: [(name: String, value: String)], body: [UInt8]) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }
}

/// The parsed `Authorization: AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…` header.
public struct SigV4Authorization: Sendable, Hashable {
    public var accessKeyId: String
    public var date: String
    public var region: String
    public var service: String
    public var signedHeaders: [String]
    public var signature: String

    /// Parses the header value; returns a reason when it is not a SigV4 authorization.
    public static func parse(_ value: String) -> Result<SigV4Authorization, SigV4Error> {
        let prefix = "AWS4-HMAC-SHA256 "
        guard value.hasPrefix(prefix) else { return .failure(.init("Authorization must use the AWS4-HMAC-SHA256 scheme")) }
        var fields: [String: String] = [:]
        for part in value.dropFirst(prefix.count).split(separator: ",") {
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            guard let eq = trimmed.firstIndex(of: "=") else { return .failure(.init("Authorization field '\(trimmed)' has no '='")) }
            fields[String(trimmed[..<eq])] = String(trimmed[trimmed.index(after: eq)...])
        }
        guard let credential = fields["Credential"], let signed = fields["SignedHeaders"], let signature = fields["Signature"] else {
            return .failure(.init("Authorization needs Credential, SignedHeaders and Signature"))
        }
        let scope = credential.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard scope.count == 5, scope[4] == "aws4_request" else {
            return .failure(.init("Credential must be <key>/<date>/<region>/<service>/aws4_request"))
        }
        let signedHeaders = signed.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        if let bad = signedHeaders.first(where: { !isLowercaseToken($0) }) {
            return .failure(.init("SignedHeaders must be lowercase header names (RFC 9110 §5.1 tokens) separated by ';': '\(bad)'"))
        }
        return .success(SigV4Authorization(
            accessKeyId: scope[0], date: scope[1], region: scope[2], service: scope[3],
            signedHeaders: signedHeaders, signature: signature))
    }

    /// A header field name as a signer writes it: a non-empty RFC 9110 §5.6.2 token, lowercased.
    private static func isLowercaseToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }

    var scope: String { "\(date)/\(region)/\(service)/aws4_request" }
}

public struct SigV4Error: Error, Hashable, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

public enum SigV4 {
    /// Signs `request` in place: adds `x-amz-date` and `Authorization`.
    public static func sign(_ request: inout SigV4Request, accessKeyId: String, secretAccessKey: String,
                            region: String, service: String, date: Date = Date()) {
        let amzDate = amzDateFormat(date)
        request.headers.removeAll { $0.name.lowercased() == "x-amz-date" || $0.name.lowercased() == "authorization" }
        request.headers.append((name: "x-amz-date", value: amzDate))
        let signedHeaders = request.headers.map { $0.name.lowercased() }.sorted()
        let auth = SigV4Authorization(accessKeyId: accessKeyId, date: String(amzDate.prefix(8)), region: region,
                                      service: service, signedHeaders: signedHeaders, signature: "")
        let signature = computeSignature(request: request, authorization: auth, amzDate: amzDate, secretAccessKey: secretAccessKey)
        request.headers.append((name: "Authorization", value:
            "AWS4-HMAC-SHA256 Credential=\(accessKeyId)/\(auth.scope), SignedHeaders=\(signedHeaders.joined(separator: ";")), Signature=\(signature)"))
    }

    /// What can be checked of a signed request before its body is read: the Authorization
    /// header parses, its credential scope is this server's, the access key is known, the
    /// X-Amz-Date is within `maxSkew` and matches the scope's date, `host` is signed. A server
    /// refuses what fails here without reading (or holding) the body.
    /// - Parameters:
    ///   - secretForKey: the secret of an access key id, or `nil` when the key is unknown.
    ///   - now: the verifier's clock; requests more than `maxSkew` away are refused.
    ///   - region, service: the credential scope this server accepts (AWS SigV4: a signature for
    ///     another region or service is refused even when it is valid); nil accepts any.
    /// - Returns: the parsed authorization, the key's secret and the X-Amz-Date, for `verify`.
    public static func precheck(headers: [(name: String, value: String)], secretForKey: (String) -> String?, now: Date = Date(),
                                maxSkew: TimeInterval = 15 * 60, region: String? = nil, service: String? = nil)
        -> Result<(authorization: SigV4Authorization, secret: String, amzDate: String), SigV4Error> {
        guard let header = headers.first(where: { $0.name.lowercased() == "authorization" })?.value else {
            return .failure(.init("the request is not signed: Authorization header missing"))
        }
        let auth: SigV4Authorization
        switch SigV4Authorization.parse(header) {
        case .failure(let error): return .failure(error)
        case .success(let parsed): auth = parsed
        }
        if let region, auth.region != region {
            return .failure(.init("credential scope region '\(auth.region)' is not this server's region '\(region)'"))
        }
        if let service, auth.service != service {
            return .failure(.init("credential scope service '\(auth.service)' is not '\(service)'"))
        }
        guard let secret = secretForKey(auth.accessKeyId) else {
            return .failure(.init("the access key id '\(auth.accessKeyId)' is not known to this server"))
        }
        guard let amzDate = headers.first(where: { $0.name.lowercased() == "x-amz-date" })?.value,
              let signedAt = parseAmzDate(amzDate) else {
            return .failure(.init("X-Amz-Date header missing or not in yyyyMMdd'T'HHmmss'Z' form"))
        }
        guard abs(signedAt.timeIntervalSince(now)) <= maxSkew else {
            return .failure(.init("signature expired: X-Amz-Date \(amzDate) is more than 15 minutes from the server's time"))
        }
        guard amzDate.hasPrefix(auth.date) else { return .failure(.init("credential date does not match X-Amz-Date")) }
        guard auth.signedHeaders.contains("host") else { return .failure(.init("the host header must be signed")) }
        return .success((auth, secret, amzDate))
    }

    /// Checks a signed request against the secret of its access key: `precheck`, then the
    /// signature over the canonical request, body included.
    public static func verify(_ request: SigV4Request, secretForKey: (String) -> String?, now: Date = Date(),
                              maxSkew: TimeInterval = 15 * 60, region: String? = nil,
                              service: String? = nil) -> Result<SigV4Authorization, SigV4Error> {
        switch precheck(headers: request.headers, secretForKey: secretForKey, now: now, maxSkew: maxSkew, region: region, service: service) {
        case .failure(let error): return .failure(error)
        case .success(let checked): return verify(request, prechecked: checked)
        }
    }

    /// The signature check of `verify` for a request whose headers already passed `precheck`.
    public static func verify(_ request: SigV4Request,
                              prechecked checked: (authorization: SigV4Authorization, secret: String, amzDate: String))
        -> Result<SigV4Authorization, SigV4Error> {
        let auth = checked.authorization
        let expected = computeSignature(request: request, authorization: auth, amzDate: checked.amzDate, secretAccessKey: checked.secret)
        guard constantTimeEqual(expected, auth.signature) else {
            return .failure(.init("the request signature does not match the one computed with the secret of '\(auth.accessKeyId)'"))
        }
        return .success(auth)
    }

    static func computeSignature(request: SigV4Request, authorization auth: SigV4Authorization, amzDate: String,
                                 secretAccessKey: String) -> String {
        let canonical = canonicalRequest(request, signedHeaders: auth.signedHeaders)
        let stringToSign = ["AWS4-HMAC-SHA256", amzDate, auth.scope, hex(SHA256.hash(data: Array(canonical.utf8)))]
            .joined(separator: "\n")
        var key = SymmetricKey(data: Array("AWS4\(secretAccessKey)".utf8))
        for part in [auth.date, auth.region, auth.service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key)))
        }
        return hex(HMAC<SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: key))
    }

    /// Method, canonical path, canonical query, one `name:values` line per signed header, a
    /// blank line, the signed header names and the body's SHA-256, on lines of their own. Built
    /// as bytes: joining Strings was most of the cost of a request with many headers.
    static func canonicalRequest(_ request: SigV4Request, signedHeaders: [String]) -> String {
        var headerValues: [String: [String]] = [:]
        for header in request.headers {
            headerValues[header.name.lowercased(), default: []].append(collapsedSpaces(header.value))
        }
        let newline = UInt8(ascii: "\n")
        var out: [UInt8] = []
        out.append(contentsOf: request.method.uppercased().utf8)
        out.append(newline)
        out.append(contentsOf: canonicalPath(request.path).utf8)
        out.append(newline)
        out.append(contentsOf: canonicalQuery(request.query).utf8)
        out.append(newline)
        for name in signedHeaders {
            out.append(contentsOf: name.utf8)
            out.append(UInt8(ascii: ":"))
            for (index, value) in (headerValues[name] ?? []).enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: value.utf8)
            }
            out.append(newline)
        }
        out.append(newline)
        for (index, name) in signedHeaders.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ";")) }
            out.append(contentsOf: name.utf8)
        }
        out.append(newline)
        out.append(contentsOf: hex(SHA256.hash(data: request.body)).utf8)
        return String(decoding: out, as: UTF8.self)
    }

    /// A header value as SigV4 signs it: without leading and trailing spaces, each run of spaces
    /// inside as one. Built as bytes (splitting and joining cost most of a long value's check).
    static func collapsedSpaces(_ value: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(value.utf8.count)
        var spaceBefore = false
        for byte in value.utf8 {
            if byte == UInt8(ascii: " ") {
                spaceBefore = !out.isEmpty
                continue
            }
            if spaceBefore { out.append(UInt8(ascii: " ")) }
            spaceBefore = false
            out.append(byte)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Each segment percent-decoded then encoded again with the unreserved set (RFC 3986 §2.3).
    static func canonicalPath(_ path: String) -> String {
        guard !path.isEmpty else { return "/" }
        var out: [UInt8] = []
        out.reserveCapacity(path.utf8.count)
        for (index, segment) in path.split(separator: "/", omittingEmptySubsequences: false).enumerated() {
            if index > 0 { out.append(UInt8(ascii: "/")) }
            appendURIEncoded(decodedOrAsIs(segment), to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func canonicalQuery(_ query: String) -> String {
        guard !query.isEmpty else { return "" }
        var pairs: [(key: String, value: String)] = []
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            pairs.append((uriEncode(decodedOrAsIs(parts[0])), parts.count > 1 ? uriEncode(decodedOrAsIs(parts[1])) : ""))
        }
        pairs.sort { lhs, rhs in lhs.key == rhs.key ? lhs.value < rhs.value : lhs.key < rhs.key }
        var out: [UInt8] = []
        out.reserveCapacity(query.utf8.count)
        for (index, pair) in pairs.enumerated() {
            if index > 0 { out.append(UInt8(ascii: "&")) }
            out.append(contentsOf: pair.key.utf8)
            out.append(UInt8(ascii: "="))
            out.append(contentsOf: pair.value.utf8)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The text percent-decoded, or as it is when it does not decode (a lone `%`, bytes that are not UTF-8).
    private static func decodedOrAsIs(_ text: Substring) -> String {
        let string = String(text)
        return string.removingPercentEncoding ?? string
    }

    /// RFC 3986 §2.3 unreserved characters: ALPHA / DIGIT / "-" / "." / "_" / "~".
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
        default: false
        }
    }

    private static let upperHexDigits = Array("0123456789ABCDEF".utf8)

    /// Every byte but the unreserved ones as `%XX` (upper-case hex, as SigV4 requires).
    static func uriEncode(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        appendURIEncoded(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `uriEncode` into a byte buffer: the canonical forms are built as bytes, because appending
    /// to Strings a scalar or a piece at a time was most of the cost of checking a long path.
    private static func appendURIEncoded(_ text: String, to out: inout [UInt8]) {
        for byte in text.utf8 {
            if isUnreserved(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(upperHexDigits[Int(byte >> 4)])
                out.append(upperHexDigits[Int(byte & 0x0F)])
            }
        }
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    static func amzDateFormat(_ date: Date) -> String {
        let c = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: date)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
    }

    /// `X-Amz-Date` (ISO 8601 basic format, `20261125T101500Z`), read by hand: it is read for
    /// every request before its signature is checked, and a `DateFormatter` cost 0.4 ms each.
    static func parseAmzDate(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 16, bytes[8] == UInt8(ascii: "T"), bytes[15] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8),
              let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15),
              (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              hour < 24, minute < 60, second < 60 else { return nil }
        let seconds = daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
