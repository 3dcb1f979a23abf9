import Testing
@testable import StageWire

/// RFC 5769 §2.4: the sample request with long-term authentication, checked with swift-crypto's
/// MD5 for the key (RFC 8489 §9.2.2) and HMAC-SHA1 for MESSAGE-INTEGRITY. Its padding is NUL,
/// which is what the builder writes, so it is also rebuilt byte for byte.
@Suite struct TURNRFC5769LongTermVectorTests {
    /// "マトリックス", unaffected by SASLprep.
    static let username = "\u{30DE}\u{30C8}\u{30EA}\u{30C3}\u{30AF}\u{30B9}"
    /// "The\u{AD}M\u{AA}tr\u{2168}" after SASLprep.
    static let password = "TheMatrIX"
    static let realm = "example.org"
    static let nonce = "f//499k954d6OL34oL9FSTvy64sA"
    static let transactionID = STUNTransactionID(high: 0x78AD_3433, middle: 0xC6AD_72C0, low: 0x29DA_412E)

    static let request: [UInt8] = [
        0x00, 0x01, 0x00, 0x60, // Request type and message length
        0x21, 0x12, 0xA4, 0x42, // Magic cookie
        0x78, 0xAD, 0x34, 0x33, // }
        0xC6, 0xAD, 0x72, 0xC0, // }  Transaction ID
        0x29, 0xDA, 0x41, 0x2E, // }
        0x00, 0x06, 0x00, 0x12, // USERNAME attribute header
        0xE3, 0x83, 0x9E, 0xE3, // }
        0x83, 0x88, 0xE3, 0x83, // }
        0xAA, 0xE3, 0x83, 0x83, // }  Username value (18 bytes) and padding (2 bytes)
        0xE3, 0x82, 0xAF, 0xE3, // }
        0x82, 0xB9, 0x00, 0x00, // }
        0x00, 0x15, 0x00, 0x1C, // NONCE attribute header
        0x66, 0x2F, 0x2F, 0x34, // }
        0x39, 0x39, 0x6B, 0x39, // }
        0x35, 0x34, 0x64, 0x36, // }
        0x4F, 0x4C, 0x33, 0x34, // }  Nonce value
        0x6F, 0x4C, 0x39, 0x46, // }
        0x53, 0x54, 0x76, 0x79, // }
        0x36, 0x34, 0x73, 0x41, // }
        0x00, 0x14, 0x00, 0x0B, // REALM attribute header
        0x65, 0x78, 0x61, 0x6D, // }
        0x70, 0x6C, 0x65, 0x2E, // }  Realm value (11 bytes) and padding (1 byte)
        0x6F, 0x72, 0x67, 0x00, // }
        0x00, 0x08, 0x00, 0x14, // MESSAGE-INTEGRITY attribute header
        0xF6, 0x70, 0x24, 0x65, // }
        0x6D, 0xD6, 0x4A, 0x3E, // }
        0x02, 0xB8, 0xE0, 0x71, // }  HMAC-SHA1 fingerprint
        0x2E, 0x85, 0xC9, 0xA2, // }
        0x8C, 0xA8, 0x96, 0x66, // }
    ]

    static var key: [UInt8] {
        STUNMessage.longTermKey(username: username, realm: realm, password: password, md5: md5)
    }

    @Test func rfc5769Section2_4ParsesAndVerifiesWithTheLongTermKey() throws {
        let message = try STUNMessage(parsing: Self.request)
        #expect(message.type == .bindingRequest)
        #expect(message.transactionID == Self.transactionID)
        #expect(try message.username == Self.username)
        #expect(try message.realm == Self.realm)
        #expect(try message.nonce == Self.nonce)
        #expect(message.verifyIntegrity(key: Self.key, hmacSHA1: hmacSHA1))
        let wrong = STUNMessage.longTermKey(username: Self.username, realm: Self.realm, password: "TheMatrix", md5: md5)
        #expect(!message.verifyIntegrity(key: wrong, hmacSHA1: hmacSHA1))
    }

    @Test func rfc5769Section2_4RebuiltByteForByte() throws {
        var builder = STUNMessageBuilder(type: .bindingRequest, transactionID: Self.transactionID)
        try builder.appendLongTermCredentials(username: Self.username, realm: Self.realm, nonce: Self.nonce)
        let bytes = builder.finish(integrityKey: Self.key, hmacSHA1: hmacSHA1, fingerprint: false)
        #expect(bytes == Self.request)
    }

    @Test func rfc8489Section9_2_2KeyIsMD5OfUsernameRealmPassword() {
        // MD5("alice:proscenium.test:secret"), computed independently (Python hashlib).
        let key = STUNMessage.longTermKey(username: "alice", realm: "proscenium.test", password: "secret", md5: md5)
        #expect(key == [0x08, 0x68, 0x3B, 0x0B, 0x8C, 0x1F, 0xE3, 0x4C, 0x27, 0x53, 0x73, 0x83, 0xEF, 0x82, 0x87, 0xB6])
    }
}
