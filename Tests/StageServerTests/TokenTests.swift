import Foundation
import StageProtocol
@testable import StageServer
import Testing

/// Participant tokens: what `ParticipantTokenSigner` mints, `ParticipantTokenVerifier` accepts,
/// and the tokens it refuses with their signaling error codes.
@Suite struct TokenTests {
    static let signer = ParticipantTokenSigner.generate()
    /// A key that is not the server's: a customer key, imported or not.
    static let otherSigner = ParticipantTokenSigner.generate()
    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    static var verifier: ParticipantTokenVerifier {
        ParticipantTokenVerifier(serverKey: signer.privateKey.publicKey, serverKeyId: signer.keyId)
    }

    static func claims(exp: Int = Int(now.timeIntervalSince1970) + 3600, version: String = "1.0") -> ParticipantTokenClaims {
        ParticipantTokenClaims(
            exp: exp, iat: Int(now.timeIntervalSince1970), jti: "pNzQ1YWxpY2U", resource: "arn:aws:ivs:us-west-2:123456789012:stage/abcdEFGH1234",
            topic: "abcdEFGH1234", eventsURL: "ws://127.0.0.1:8080/events/abcdEFGH1234", whipURL: "http://127.0.0.1:8080/whip",
            userId: "alice", attributes: ["role": "host"], capabilities: Capabilities(allowPublish: true, allowSubscribe: false),
            version: version)
    }

    static func parts(_ token: String) -> [String] {
        token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    /// Replaces the character in the middle of `text` by another base64url character.
    static func flipMiddle(_ text: String) -> String {
        var chars = Array(text)
        let i = chars.count / 2
        chars[i] = chars[i] == "A" ? "B" : "A"
        return String(chars)
    }

    /// A compact JWS over arbitrary header and payload JSON, signed with the server key.
    static func rawToken(header: String, payload: String, signer: ParticipantTokenSigner = signer) throws -> String {
        let input = Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(Data(payload.utf8))
        let signature = try signer.privateKey.signature(for: Data(input.utf8))
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }

    /// `claims` under a hand-written JOSE header, signed by `signer`.
    static func rawToken(header: String, claims: ParticipantTokenClaims, signer: ParticipantTokenSigner) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try rawToken(header: header, payload: String(decoding: try encoder.encode(claims), as: UTF8.self), signer: signer)
    }

    // MARK: Accepted

    @Test("a token signed by the server key verifies and returns its claims")
    func signedTokenVerifies() async throws {
        let token = try Self.signer.sign(Self.claims())
        let claims = try await Self.verifier.verify(token, now: Self.now, importedKeys: { _ in [] })
        #expect(claims == Self.claims())
    }

    @Test("the JOSE header is ES384/JWT with the server's kid, or none when asked")
    func header() throws {
        struct Header: Decodable, Equatable { var alg: String; var typ: String; var kid: String? }
        let withKid = try JSONDecoder().decode(Header.self, from: #require(Base64URL.decode(Self.parts(Self.signer.sign(Self.claims()))[0])))
        #expect(withKid == Header(alg: "ES384", typ: "JWT", kid: Self.signer.keyId))
        #expect(Self.signer.keyId.hasPrefix("ps-"))
        let withoutKid = try JSONDecoder().decode(
            Header.self, from: #require(Base64URL.decode(Self.parts(Self.signer.sign(Self.claims(), includeKeyId: false))[0])))
        #expect(withoutKid.kid == nil)
        // The signature is the 96-byte raw r||s form.
        #expect(Base64URL.decode(Self.parts(try Self.signer.sign(Self.claims()))[2])?.count == 96)
    }

    @Test("the imported keys are not loaded when the server key verifies")
    func importedKeysNotLoadedForServerTokens() async throws {
        let token = try Self.signer.sign(Self.claims())
        var loads = 0
        _ = try await Self.verifier.verify(token, now: Self.now, importedKeys: { _ in loads += 1; return [] })
        #expect(loads == 0)
    }

    @Test("a token of another key is accepted once that key is among the imported keys")
    func importedKeyAccepted() async throws {
        let token = try Self.otherSigner.sign(Self.claims(), includeKeyId: false)
        let claims = try await Self.verifier.verify(token, now: Self.now, importedKeys: { _ in
            [Self.signer.privateKey.publicKey, Self.otherSigner.privateKey.publicKey]
        })
        #expect(claims.userId == "alice")
    }

    @Test("a signer read back from its PEM signs tokens the same verifier accepts")
    func pemRoundTrip() async throws {
        let restored = try ParticipantTokenSigner(pemRepresentation: Self.signer.privateKeyPEM)
        #expect(restored.keyId == Self.signer.keyId)
        let token = try restored.sign(Self.claims())
        #expect(try await Self.verifier.verify(token, now: Self.now, importedKeys: { _ in [] }) == Self.claims())
    }

    // MARK: Refused

    /// A token, the imported keys offered, and the code the verifier must refuse it with.
    struct Rejection: Sendable, CustomTestStringConvertible {
        let name: String
        let code: SignalErrorCode
        /// Part of the rejection reason.
        let reason: String
        let token: @Sendable () throws -> String

        init(_ name: String, _ code: SignalErrorCode, reason: String, _ token: @escaping @Sendable () throws -> String) {
            self.name = name
            self.code = code
            self.reason = reason
            self.token = token
        }

        var testDescription: String { name }
    }

    static let rejections: [Rejection] = [
        // One character of the claims changed after signing.
        Rejection("tampered payload (middle character flipped)", .invalidToken, reason: "signature does not verify") {
            var p = parts(try signer.sign(claims()))
            p[1] = flipMiddle(p[1])
            return p.joined(separator: ".")
        },
        // Claims of another participant grafted onto a valid signature.
        Rejection("payload swapped for other claims", .invalidToken, reason: "signature does not verify") {
            var p = parts(try signer.sign(claims()))
            var other = claims()
            other.capabilities = Capabilities(allowPublish: true, allowSubscribe: true)
            p[1] = parts(try signer.sign(other))[1]
            return p.joined(separator: ".")
        },
        // One character of the signature changed.
        Rejection("tampered signature (middle character flipped)", .invalidToken, reason: "token:") {
            var p = parts(try signer.sign(claims()))
            p[2] = flipMiddle(p[2])
            return p.joined(separator: ".")
        },
        // A signature of the wrong length.
        Rejection("signature truncated to 64 bytes", .invalidToken, reason: "96 bytes") {
            var p = parts(try signer.sign(claims()))
            p[2] = Base64URL.encode(Data(repeating: 1, count: 64))
            return p.joined(separator: ".")
        },
        // The header claims HMAC: refused before any signature check.
        Rejection(#"alg "HS256" header"#, .invalidToken, reason: "alg must be ES384, got 'HS256'") {
            var p = parts(try signer.sign(claims()))
            p[0] = Base64URL.encode(Data(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
            return p.joined(separator: ".")
        },
        // "none" is refused as well.
        Rejection(#"alg "none" with an empty signature"#, .invalidToken, reason: "token:") {
            let p = parts(try signer.sign(claims()))
            return Base64URL.encode(Data(#"{"alg":"none"}"#.utf8)) + "." + p[1] + "."
        },
        // The header is not JSON.
        Rejection("header not JSON", .invalidToken, reason: "JOSE header") {
            var p = parts(try signer.sign(claims()))
            p[0] = Base64URL.encode(Data("not json".utf8))
            return p.joined(separator: ".")
        },
        // Header and payload only.
        Rejection("2-part token", .invalidToken, reason: "not a compact JWT") {
            let p = parts(try signer.sign(claims()))
            return p[0] + "." + p[1]
        },
        // Four parts.
        Rejection("4-part token", .invalidToken, reason: "not a compact JWT") { try signer.sign(claims()) + ".AAAA" },
        // Characters outside base64url.
        Rejection("garbage base64", .invalidToken, reason: "not a compact JWT") { "%%%%.****.@@@@" },
        // Standard base64 with padding is not base64url.
        Rejection("padded base64 header", .invalidToken, reason: "not a compact JWT") {
            var p = parts(try signer.sign(claims()))
            p[0] += "=="
            return p.joined(separator: ".")
        },
        // An empty string.
        Rejection("empty token", .invalidToken, reason: "not a compact JWT") { "" },
        // Longer than the 8192-byte limit.
        Rejection("token over 8192 bytes", .invalidToken, reason: "8192") {
            var p = parts(try signer.sign(claims()))
            p[1] += String(repeating: "A", count: 8192)
            return p.joined(separator: ".")
        },
        // exp one minute before the verifier's clock.
        Rejection("expired (exp in the past)", .tokenExpired, reason: "expired") {
            try signer.sign(claims(exp: Int(now.timeIntervalSince1970) - 60))
        },
        // exp exactly now is already expired.
        Rejection("expired (exp equals now)", .tokenExpired, reason: "expired") {
            try signer.sign(claims(exp: Int(now.timeIntervalSince1970)))
        },
        // Signed by a key the server does not know (no imported keys).
        Rejection("signed by another key that is not imported", .invalidToken, reason: "any imported public key") {
            try otherSigner.sign(claims(), includeKeyId: false)
        },
        // A well-signed token with another claims version.
        Rejection(#"version "2.0""#, .invalidToken, reason: #"version must be "1.0""#) {
            try signer.sign(claims(version: "2.0"))
        },
        // A well-signed JWT whose claims are not the IVS layout.
        Rejection("validly signed, claims not the IVS layout", .invalidToken, reason: "participant-token layout") {
            try rawToken(header: #"{"alg":"ES384","typ":"JWT"}"#, payload: #"{"sub":"alice","exp":9999999999}"#)
        },
    ]

    @Test(arguments: rejections)
    func verifierRefuses(_ rejection: Rejection) async throws {
        let token = try rejection.token()
        do {
            let claims = try await Self.verifier.verify(token, now: Self.now, importedKeys: { _ in [] })
            Issue.record("\(rejection.name): accepted, claims \(claims)")
        } catch {
            #expect(error.code == rejection.code)
            #expect(error.reason.contains(rejection.reason), "reason was '\(error.reason)'")
        }
    }

    @Test("a token of another key is refused while it is not imported, accepted once it is")
    func otherKeyNeedsImport() async throws {
        let token = try Self.otherSigner.sign(Self.claims(), includeKeyId: false)
        do {
            _ = try await Self.verifier.verify(token, now: Self.now, importedKeys: { _ in [Self.signer.privateKey.publicKey] })
            Issue.record("accepted a token of a key that is not imported")
        } catch {
            #expect(error.code == .invalidToken)
        }
        let claims = try await Self.verifier.verify(token, now: Self.now, importedKeys: { _ in [Self.otherSigner.privateKey.publicKey] })
        #expect(claims == Self.claims())
    }

    @Test("when loading the imported keys fails, a token of another key is refused as invalid")
    func importedKeysFailure() async throws {
        struct StoreDown: Error {}
        let token = try Self.otherSigner.sign(Self.claims(), includeKeyId: false)
        await #expect(throws: TokenRejection(code: .invalidToken,
                                             reason: "token: signature does not verify with the server key or any imported public key")) {
            try await Self.verifier.verify(token, now: Self.now, importedKeys: { _ in throw StoreDown() })
        }
    }

    @Test("a kid naming an imported key's ARN is checked with that key alone")
    func kidPicksTheImportedKey() async throws {
        let arn = "arn:aws:ivs:us-east-1:123456789012:public-key/abc"
        let token = try Self.rawToken(header: #"{"alg":"ES384","typ":"JWT","kid":"\#(arn)"}"#, claims: Self.claims(), signer: Self.otherSigner)
        var asked: [String?] = []
        let claims = try await Self.verifier.verify(token, now: Self.now, importedKeys: { kid in
            asked.append(kid)
            return kid == arn ? [Self.otherSigner.privateKey.publicKey] : []
        })
        #expect(claims == Self.claims())
        #expect(asked == [arn])
    }

    @Test("a kid that names no key is refused without trying every imported key")
    func unknownKidRefused() async throws {
        let token = try Self.rawToken(header: #"{"alg":"ES384","typ":"JWT","kid":"someone-else"}"#, claims: Self.claims(), signer: Self.otherSigner)
        var asked: [String?] = []
        await #expect(throws: TokenRejection(code: .invalidToken,
                                             reason: "token: kid 'someone-else' is neither the server key id nor the ARN of an imported public key")) {
            try await Self.verifier.verify(token, now: Self.now, importedKeys: { kid in
                asked.append(kid)
                return kid == nil ? [Self.otherSigner.privateKey.publicKey] : []
            })
        }
        #expect(asked == ["someone-else"])
    }

    @Test("the server's kid on a token another key signed is refused, the imported keys untouched")
    func serverKidWithAnotherSignature() async throws {
        let header = #"{"alg":"ES384","typ":"JWT","kid":"\#(Self.signer.keyId)"}"#
        let token = try Self.rawToken(header: header, claims: Self.claims(), signer: Self.otherSigner)
        var loads = 0
        await #expect(throws: TokenRejection(code: .invalidToken, reason: "token: signature does not verify with the server key its kid names")) {
            try await Self.verifier.verify(token, now: Self.now, importedKeys: { _ in loads += 1; return [Self.otherSigner.privateKey.publicKey] })
        }
        #expect(loads == 0)
    }

    @Test("expiry is judged against the given clock: valid one second before exp, expired at exp")
    func expiryUsesClock() async throws {
        let exp = Int(Self.now.timeIntervalSince1970) + 600
        let token = try Self.signer.sign(Self.claims(exp: exp))
        _ = try await Self.verifier.verify(token, now: Date(timeIntervalSince1970: Double(exp - 1)), importedKeys: { _ in [] })
        do {
            _ = try await Self.verifier.verify(token, now: Date(timeIntervalSince1970: Double(exp)), importedKeys: { _ in [] })
            Issue.record("accepted at its expiry time")
        } catch {
            #expect(error.code == .tokenExpired)
        }
    }
}

/// The token bucket that limits signaling messages per socket.
@Suite struct RateLimiterTests {
    static let t0 = ContinuousClock.now

    static func at(_ offset: Duration) -> ContinuousClock.Instant { t0.advanced(by: offset) }

    /// Holds a limiter so `#expect` (which cannot call mutating members) can take tokens.
    final class Bucket {
        var limiter: RateLimiter
        init(_ limiter: RateLimiter) { self.limiter = limiter }
        func allow(_ now: ContinuousClock.Instant) -> Bool { limiter.allow(now: now) }
    }

    @Test("burst, then refusal, then refill as time passes")
    func burstRefusalRefill() {
        let bucket = Bucket(RateLimiter(rate: 50, burst: 100, now: Self.t0))
        // The whole burst is available at once.
        for i in 0..<100 {
            #expect(bucket.allow(Self.t0), "message \(i) of the burst")
        }
        // The 101st at the same instant is refused, and refusals do not go negative.
        #expect(!bucket.allow(Self.t0))
        #expect(!bucket.allow(Self.t0))
        // 30 ms at 50/s refill 1.5 tokens: one message passes, the next is refused.
        #expect(bucket.allow(Self.at(.milliseconds(30))))
        #expect(!bucket.allow(Self.at(.milliseconds(30))))
        // 20 ms more add 1.0 to the remaining 0.5: one more passes.
        #expect(bucket.allow(Self.at(.milliseconds(50))))
        #expect(!bucket.allow(Self.at(.milliseconds(50))))
        // Ten seconds would be 500 tokens, but the bucket holds only the burst.
        var passed = 0
        while bucket.allow(Self.at(.seconds(10))) { passed += 1; if passed > 1000 { break } }
        #expect(passed == 100)
    }

    @Test("a steady rate at the limit is never refused")
    func steadyRateAtLimit() {
        var limiter = RateLimiter(rate: 50, burst: 1, now: Self.t0)
        // One message every 20 ms (50/s) for 5 seconds; each arrives after a full refill.
        var refused = 0
        for i in 1...250 {
            if !limiter.allow(now: Self.at(.milliseconds(20 * i) + .microseconds(1))) { refused += 1 }
        }
        #expect(refused == 0)
    }

    /// (rate per second, burst, seconds waited after the burst is spent, messages then allowed)
    @Test(arguments: [
        (50.0, 100.0, 0.5, 25),    // the server's limits: half a second gives 25
        (50.0, 100.0, 1.99, 99),   // just under two seconds: 99.5 tokens
        (50.0, 100.0, 60.0, 100),  // a long pause refills only up to the burst
        (1.0, 3.0, 2.5, 2),        // slow rate: 2.5 tokens
        (10.0, 5.0, 0.05, 0),      // half a token is not enough
    ])
    func refillAfterPause(_ rate: Double, _ burst: Double, _ pause: Double, _ allowed: Int) {
        let bucket = Bucket(RateLimiter(rate: rate, burst: burst, now: Self.t0))
        for _ in 0..<Int(burst) { _ = bucket.allow(Self.t0) }
        #expect(!bucket.allow(Self.t0))
        let later = Self.at(.seconds(pause))
        var passed = 0
        while bucket.allow(later) { passed += 1; if passed > 10_000 { break } }
        #expect(passed == allowed)
    }

    @Test("the signaling socket limits: 50 messages/s sustained, bursts of 100")
    func serverLimits() {
        #expect(SignalingLimits.messagesPerSecond == 50)
        #expect(SignalingLimits.burst == 100)
        var limiter = RateLimiter(rate: SignalingLimits.messagesPerSecond, burst: SignalingLimits.burst, now: Self.t0)
        var passed = 0
        while limiter.allow(now: Self.t0) { passed += 1; if passed > 1000 { break } }
        #expect(passed == Int(SignalingLimits.burst))
    }
}
