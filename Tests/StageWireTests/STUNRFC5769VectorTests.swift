import Crypto
import Testing
@testable import StageWire

/// The test vectors of RFC 5769 ("Test Vectors for STUN"), checked with swift-crypto's
/// `HMAC<Insecure.SHA1>` for MESSAGE-INTEGRITY and this module's CRC-32 for FINGERPRINT.
/// Padding bytes in the vectors are 0x20, which a receiver must ignore.
@Suite struct STUNRFC5769VectorTests {
    static let password = "VOkJxbRl1RmTxUk/WvJxBt"
    static let transactionID = STUNTransactionID(high: 0xB7E7_A701, middle: 0xBC34_D686, low: 0xFA87_DFAE)

    /// RFC 5769 §2.1: sample request.
    static let sampleRequest: [UInt8] = [
        0x00, 0x01, 0x00, 0x58, // Request type and message length
        0x21, 0x12, 0xA4, 0x42, // Magic cookie
        0xB7, 0xE7, 0xA7, 0x01, // }
        0xBC, 0x34, 0xD6, 0x86, // }  Transaction ID
        0xFA, 0x87, 0xDF, 0xAE, // }
        0x80, 0x22, 0x00, 0x10, // SOFTWARE attribute header
        0x53, 0x54, 0x55, 0x4E, // }
        0x20, 0x74, 0x65, 0x73, // }  User-agent...
        0x74, 0x20, 0x63, 0x6C, // }  ...name
        0x69, 0x65, 0x6E, 0x74, // }
        0x00, 0x24, 0x00, 0x04, // PRIORITY attribute header
        0x6E, 0x00, 0x01, 0xFF, // ICE priority value
        0x80, 0x29, 0x00, 0x08, // ICE-CONTROLLED attribute header
        0x93, 0x2F, 0xF9, 0xB1, // }  Pseudo-random tie breaker...
        0x51, 0x26, 0x3B, 0x36, // }   ...for ICE control
        0x00, 0x06, 0x00, 0x09, // USERNAME attribute header
        0x65, 0x76, 0x74, 0x6A, // }
        0x3A, 0x68, 0x36, 0x76, // }  Username (9 bytes) and padding (3 bytes)
        0x59, 0x20, 0x20, 0x20, // }
        0x00, 0x08, 0x00, 0x14, // MESSAGE-INTEGRITY attribute header
        0x9A, 0xEA, 0xA7, 0x0C, // }
        0xBF, 0xD8, 0xCB, 0x56, // }
        0x78, 0x1E, 0xF2, 0xB5, // }  HMAC-SHA1 fingerprint
        0xB2, 0xD3, 0xF2, 0x49, // }
        0xC1, 0xB5, 0x71, 0xA2, // }
        0x80, 0x28, 0x00, 0x04, // FINGERPRINT attribute header
        0xE5, 0x7A, 0x3B, 0xCF, // CRC32 fingerprint
    ]

    /// RFC 5769 §2.2: sample IPv4 response.
    static let sampleIPv4Response: [UInt8] = [
        0x01, 0x01, 0x00, 0x3C, // Response type and message length
        0x21, 0x12, 0xA4, 0x42, // Magic cookie
        0xB7, 0xE7, 0xA7, 0x01, // }
        0xBC, 0x34, 0xD6, 0x86, // }  Transaction ID
        0xFA, 0x87, 0xDF, 0xAE, // }
        0x80, 0x22, 0x00, 0x0B, // SOFTWARE attribute header
        0x74, 0x65, 0x73, 0x74, // }
        0x20, 0x76, 0x65, 0x63, // }  UTF-8 server name
        0x74, 0x6F, 0x72, 0x20, // }
        0x00, 0x20, 0x00, 0x08, // XOR-MAPPED-ADDRESS attribute header
        0x00, 0x01, 0xA1, 0x47, // Address family (IPv4) and xor'd mapped port number
        0xE1, 0x12, 0xA6, 0x43, // Xor'd mapped IPv4 address
        0x00, 0x08, 0x00, 0x14, // MESSAGE-INTEGRITY attribute header
        0x2B, 0x91, 0xF5, 0x99, // }
        0xFD, 0x9E, 0x90, 0xC3, // }
        0x8C, 0x74, 0x89, 0xF9, // }  HMAC-SHA1 fingerprint
        0x2A, 0xF9, 0xBA, 0x53, // }
        0xF0, 0x6B, 0xE7, 0xD7, // }
        0x80, 0x28, 0x00, 0x04, // FINGERPRINT attribute header
        0xC0, 0x7D, 0x4C, 0x96, // CRC32 fingerprint
    ]

    /// RFC 5769 §2.3: sample IPv6 response.
    static let sampleIPv6Response: [UInt8] = [
        0x01, 0x01, 0x00, 0x48, // Response type and message length
        0x21, 0x12, 0xA4, 0x42, // Magic cookie
        0xB7, 0xE7, 0xA7, 0x01, // }
        0xBC, 0x34, 0xD6, 0x86, // }  Transaction ID
        0xFA, 0x87, 0xDF, 0xAE, // }
        0x80, 0x22, 0x00, 0x0B, // SOFTWARE attribute header
        0x74, 0x65, 0x73, 0x74, // }
        0x20, 0x76, 0x65, 0x63, // }  UTF-8 server name
        0x74, 0x6F, 0x72, 0x20, // }
        0x00, 0x20, 0x00, 0x14, // XOR-MAPPED-ADDRESS attribute header
        0x00, 0x02, 0xA1, 0x47, // Address family (IPv6) and xor'd mapped port number
        0x01, 0x13, 0xA9, 0xFA, // }
        0xA5, 0xD3, 0xF1, 0x79, // }  Xor'd mapped IPv6 address
        0xBC, 0x25, 0xF4, 0xB5, // }
        0xBE, 0xD2, 0xB9, 0xD9, // }
        0x00, 0x08, 0x00, 0x14, // MESSAGE-INTEGRITY attribute header
        0xA3, 0x82, 0x95, 0x4E, // }
        0x4B, 0xE6, 0x7B, 0xF1, // }
        0x17, 0x84, 0xC9, 0x7C, // }  HMAC-SHA1 fingerprint
        0x82, 0x92, 0xC2, 0x75, // }
        0xBF, 0xE3, 0xED, 0x41, // }
        0x80, 0x28, 0x00, 0x04, // FINGERPRINT attribute header
        0xC8, 0xFB, 0x0B, 0x4C, // CRC32 fingerprint
    ]

    static var key: [UInt8] { STUNMessage.shortTermKey(password: password) }

    @Test func rfc5769Section2_1SampleRequestParses() throws {
        let message = try STUNMessage(parsing: Self.sampleRequest)
        #expect(message.type == .bindingRequest)
        #expect(message.type.rawValue == 0x0001)
        #expect(message.transactionID == Self.transactionID)
        #expect(try message.software == "STUN test client")
        #expect(try message.priority == 0x6E00_01FF)
        #expect(try message.iceControlled == 0x932F_F9B1_5126_3B36)
        #expect(try message.iceControlling == nil)
        #expect(try message.username == "evtj:h6vY")
        #expect(message.useCandidate == false)
        #expect(message.fingerprint == 0xE57A_3BCF)
        #expect(message.hasFingerprint)
        #expect(message.unknownComprehensionRequired().isEmpty)
    }

    @Test func rfc5769Section2_1SampleRequestIntegrity() throws {
        let message = try STUNMessage(parsing: Self.sampleRequest)
        #expect(message.verifyIntegrity(key: Self.key, hmacSHA1: hmacSHA1))
        #expect(!message.verifyIntegrity(key: STUNMessage.shortTermKey(password: "wrong"), hmacSHA1: hmacSHA1))
    }

    @Test func rfc5769Section2_1SampleRequestRebuiltByteForByte() throws {
        var builder = STUNMessageBuilder(type: .bindingRequest, transactionID: Self.transactionID)
        builder.paddingByte = 0x20
        try builder.appendSoftware("STUN test client")
        builder.appendPriority(0x6E00_01FF)
        builder.appendICEControlled(tieBreaker: 0x932F_F9B1_5126_3B36)
        try builder.appendUsername("evtj:h6vY")
        let bytes = builder.finish(integrityKey: Self.key, hmacSHA1: hmacSHA1)
        #expect(bytes == Self.sampleRequest)
    }

    @Test func rfc5769Section2_2SampleIPv4Response() throws {
        let message = try STUNMessage(parsing: Self.sampleIPv4Response)
        #expect(message.type == .bindingSuccess)
        #expect(message.transactionID == Self.transactionID)
        #expect(try message.software == "test vector")
        let address = try #require(try message.xorMappedAddress)
        #expect(address == STUNAddress(ip: .v4(0xC000_0201), port: 32853))
        #expect(address.description == "192.0.2.1:32853")
        #expect(message.verifyIntegrity(key: Self.key, hmacSHA1: hmacSHA1))
        #expect(message.fingerprint == 0xC07D_4C96)

        var builder = STUNMessageBuilder(type: .bindingSuccess, transactionID: Self.transactionID)
        builder.paddingByte = 0x20
        try builder.appendSoftware("test vector")
        builder.appendXORMappedAddress(address)
        #expect(builder.finish(integrityKey: Self.key, hmacSHA1: hmacSHA1) == Self.sampleIPv4Response)
    }

    @Test func rfc5769Section2_3SampleIPv6Response() throws {
        let message = try STUNMessage(parsing: Self.sampleIPv6Response)
        #expect(message.type == .bindingSuccess)
        let address = try #require(try message.xorMappedAddress)
        let expectedIP = try #require(IPAddress("2001:db8:1234:5678:11:2233:4455:6677"))
        #expect(address == STUNAddress(ip: expectedIP, port: 32853))
        #expect(address.description == "[2001:db8:1234:5678:11:2233:4455:6677]:32853")
        #expect(message.verifyIntegrity(key: Self.key, hmacSHA1: hmacSHA1))
        #expect(message.fingerprint == 0xC8FB_0B4C)

        var builder = STUNMessageBuilder(type: .bindingSuccess, transactionID: Self.transactionID)
        builder.paddingByte = 0x20
        try builder.appendSoftware("test vector")
        builder.appendXORMappedAddress(address)
        #expect(builder.finish(integrityKey: Self.key, hmacSHA1: hmacSHA1) == Self.sampleIPv6Response)
    }

    /// The vectors' FINGERPRINT values come from this module's CRC-32 (RFC 8489 §14.7).
    @Test(arguments: [sampleRequest, sampleIPv4Response, sampleIPv6Response])
    func rfc8489Section14_7FingerprintOfVectors(_ vector: [UInt8]) {
        let offset = vector.count - 8
        let expected = UInt32(vector[offset + 4]) << 24 | UInt32(vector[offset + 5]) << 16
            | UInt32(vector[offset + 6]) << 8 | UInt32(vector[offset + 7])
        #expect(CRC32.checksum(vector[..<offset]) ^ STUNMessage.fingerprintXOR == expected)
    }
}
