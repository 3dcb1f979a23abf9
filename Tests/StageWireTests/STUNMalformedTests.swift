import Testing
@testable import StageWire

/// One malformed datagram and the error parsing must report (pion's `TestUnmarshal_ErrorHandling`).
struct STUNMalformedCase: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    let error: STUNError
    var testDescription: String { name }
}

/// Malformed STUN input, named after the RFC 8489 rule each breaks. Every case must throw, never trap.
@Suite struct STUNMalformedTests {
    static let cases: [STUNMalformedCase] = [
        STUNMalformedCase(
            name: "§5 header shorter than 20 bytes",
            bytes: [
                0x00, 0x01, 0x00, 0x00, // Binding request, length 0
                0x21, 0x12, 0xA4, 0x42, // Magic cookie
                0x00, 0x00, 0x00, 0x00, // Transaction ID, cut after 4 of 12 bytes
            ],
            error: .truncatedHeader(available: 12)),
        STUNMalformedCase(
            name: "§5 two leading bits set",
            bytes: [
                0xC0, 0x01, 0x00, 0x00, // leading bits 11: not STUN
                0x21, 0x12, 0xA4, 0x42, // Magic cookie
                0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, // Transaction ID
            ],
            error: .leadingBitsNotZero(firstByte: 0xC0)),
        STUNMalformedCase(
            name: "§5 bad magic cookie",
            bytes: [
                0x00, 0x01, 0x00, 0x00, // Binding request, length 0
                0x21, 0x12, 0xA4, 0x43, // Magic cookie off by one
                0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, // Transaction ID
            ],
            error: .badMagicCookie(0x2112_A443)),
        STUNMalformedCase(
            name: "§5 length not a multiple of 4",
            bytes: [
                0x00, 0x01, 0x00, 0x02, // Binding request, length 2
                0x21, 0x12, 0xA4, 0x42, // Magic cookie
                0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, // Transaction ID
                0x00, 0x00, // two bytes of body
            ],
            error: .lengthNotMultipleOfFour(2)),
        STUNMalformedCase(
            name: "§5 length beyond buffer",
            bytes: [
                0x00, 0x01, 0x00, 0x08, // Binding request, length 8
                0x21, 0x12, 0xA4, 0x42, // Magic cookie
                0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, // Transaction ID
                0x00, 0x25, 0x00, 0x00, // USE-CANDIDATE, only 4 of the 8 bytes present
            ],
            error: .lengthBeyondBuffer(declared: 8, available: 4)),
        STUNMalformedCase(
            name: "§5 trailing bytes after the message",
            bytes: [
                0x00, 0x01, 0x00, 0x00, // Binding request, length 0
                0x21, 0x12, 0xA4, 0x42, // Magic cookie
                0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, // Transaction ID
                0x00, 0x25, 0x00, 0x00, // USE-CANDIDATE outside the declared length
            ],
            error: .trailingBytes(declared: 0, available: 4)),
        STUNMalformedCase(
            name: "§14 attribute length beyond message",
            bytes: [
                0x00, 0x01, 0x00, 0x08, // Binding request, length 8
                0x21, 0x12, 0xA4, 0x42, // Magic cookie
                0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, // Transaction ID
                0x00, 0x06, 0x00, 0x09, // USERNAME, length 9 (12 padded) in 4 remaining bytes
                0x61, 0x62, 0x63, 0x64, // "abcd"
            ],
            error: .attributeBeyondMessage(type: .username, offset: 20, length: 9)),
        STUNMalformedCase(
            name: "§14.5 MESSAGE-INTEGRITY not 20 bytes",
            bytes: [
                0x00, 0x01, 0x00, 0x08, // Binding request, length 8
                0x21, 0x12, 0xA4, 0x42, // Magic cookie
                0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, // Transaction ID
                0x00, 0x08, 0x00, 0x04, // MESSAGE-INTEGRITY, length 4
                0xDE, 0xAD, 0xBE, 0xEF, // 4-byte "HMAC"
            ],
            error: .invalidAttributeLength(type: .messageIntegrity, length: 4)),
        STUNMalformedCase(
            name: "§14.7 FINGERPRINT not last",
            bytes: [
                0x00, 0x01, 0x00, 0x0C, // Binding request, length 12
                0x21, 0x12, 0xA4, 0x42, // Magic cookie
                0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, // Transaction ID
                0x80, 0x28, 0x00, 0x04, // FINGERPRINT header
                0x00, 0x00, 0x00, 0x00, // CRC (never checked: the order is wrong first)
                0x00, 0x25, 0x00, 0x00, // USE-CANDIDATE after FINGERPRINT
            ],
            error: .fingerprintNotLast(offset: 28)),
        STUNMalformedCase(
            name: "§14.7 FINGERPRINT mismatch detected",
            bytes: Array(STUNRFC5769VectorTests.sampleRequest.dropLast()) + [0xCE], // last CRC byte 0xCF → 0xCE
            error: .fingerprintMismatch(expected: 0xE57A_3BCF, received: 0xE57A_3BCE)),
    ]

    @Test(arguments: cases)
    func rfc8489MalformedMessageIsRejected(_ testCase: STUNMalformedCase) {
        #expect(stunError { () throws(STUNError) in try STUNMessage(parsing: testCase.bytes) } == testCase.error)
    }

    /// Every proper prefix of the RFC 5769 §2.1 request is rejected (§5 length checks).
    @Test(arguments: 0..<STUNRFC5769VectorTests.sampleRequest.count)
    func rfc8489Section5EveryTruncationThrows(_ length: Int) {
        let prefix = Array(STUNRFC5769VectorTests.sampleRequest.prefix(length))
        #expect(stunError { () throws(STUNError) in try STUNMessage(parsing: prefix) } != nil)
    }

    /// Changing a protected byte fails MESSAGE-INTEGRITY. FINGERPRINT is dropped first (length
    /// reduced by 8) so that the message still parses and only the HMAC catches the change.
    @Test func rfc8489Section14_5IntegrityMismatchDetected() throws {
        let key = STUNMessage.shortTermKey(password: STUNRFC5769VectorTests.password)
        let request = STUNRFC5769VectorTests.sampleRequest
        let unfingerprinted = withLength(Array(request.dropLast(8)), request.count - 8 - 20)
        #expect(try STUNMessage(parsing: unfingerprinted).verifyIntegrity(key: key, hmacSHA1: hmacSHA1))

        var tampered = unfingerprinted
        tampered[24] ^= 0x01  // first SOFTWARE byte: "S" → "R"
        let message = try STUNMessage(parsing: tampered)
        #expect(!message.verifyIntegrity(key: key, hmacSHA1: hmacSHA1))

        var tamperedMAC = unfingerprinted
        tamperedMAC[tamperedMAC.count - 1] ^= 0x80  // last HMAC byte
        #expect(try !STUNMessage(parsing: tamperedMAC).verifyIntegrity(key: key, hmacSHA1: hmacSHA1))
    }

    /// A message without MESSAGE-INTEGRITY never verifies.
    @Test func rfc8489Section14_5MissingIntegrityFails() throws {
        let bare: [UInt8] = [
            0x00, 0x01, 0x00, 0x00, // Binding request, length 0
            0x21, 0x12, 0xA4, 0x42, // Magic cookie
            0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, // Transaction ID
        ]
        #expect(try !STUNMessage(parsing: bare).verifyIntegrity(key: [1, 2, 3], hmacSHA1: hmacSHA1))
    }

    @Test func rfc8489Section14_2XORMappedAddressUnknownFamily() throws {
        let bytes: [UInt8] = [
            0x01, 0x01, 0x00, 0x0C, // Binding success, length 12
            0x21, 0x12, 0xA4, 0x42, // Magic cookie
            0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, // Transaction ID
            0x00, 0x20, 0x00, 0x08, // XOR-MAPPED-ADDRESS header
            0x00, 0x03, 0xA1, 0x47, // family 0x03 (unknown), X-Port
            0xE1, 0x12, 0xA6, 0x43, // X-Address
        ]
        let message = try STUNMessage(parsing: bytes)
        #expect(stunError { () throws(STUNError) in try message.xorMappedAddress } ==
            .unknownAddressFamily(type: .xorMappedAddress, family: 0x03))
    }

    @Test func rfc8489Section14_2XORMappedAddressIPv6FamilyWithIPv4Length() throws {
        let bytes: [UInt8] = [
            0x01, 0x01, 0x00, 0x0C, // Binding success, length 12
            0x21, 0x12, 0xA4, 0x42, // Magic cookie
            0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, // Transaction ID
            0x00, 0x20, 0x00, 0x08, // XOR-MAPPED-ADDRESS header, 8 bytes
            0x00, 0x02, 0xA1, 0x47, // family IPv6 needs 20 bytes
            0xE1, 0x12, 0xA6, 0x43, // X-Address (IPv4-sized)
        ]
        let message = try STUNMessage(parsing: bytes)
        #expect(stunError { () throws(STUNError) in try message.xorMappedAddress } ==
            .invalidAttributeLength(type: .xorMappedAddress, length: 8))
    }

    @Test func rfc8489Section14_8ErrorCodeClassOutOfRange() throws {
        let bytes: [UInt8] = [
            0x01, 0x11, 0x00, 0x08, // Binding error response, length 8
            0x21, 0x12, 0xA4, 0x42, // Magic cookie
            0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, // Transaction ID
            0x00, 0x09, 0x00, 0x04, // ERROR-CODE header
            0x00, 0x00, 0x07, 0x00, // class 7 (only 3–6 exist), number 0
        ]
        let message = try STUNMessage(parsing: bytes)
        #expect(stunError { () throws(STUNError) in try message.errorCode } == .invalidErrorCode(errorClass: 7, number: 0))
    }

    @Test func rfc8489Section14_3UsernameNotUTF8() throws {
        let bytes: [UInt8] = [
            0x00, 0x01, 0x00, 0x08, // Binding request, length 8
            0x21, 0x12, 0xA4, 0x42, // Magic cookie
            0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, // Transaction ID
            0x00, 0x06, 0x00, 0x02, // USERNAME, 2 bytes
            0xC3, 0x28, 0x00, 0x00, // invalid UTF-8 sequence, padding
        ]
        let message = try STUNMessage(parsing: bytes)
        #expect(stunError { () throws(STUNError) in try message.username } == .invalidUTF8(type: .username))
    }

    @Test func errorsDescribeTheRule() {
        #expect(STUNError.badMagicCookie(0x2112_A443).description.contains("§5"))
        #expect(STUNError.fingerprintMismatch(expected: 1, received: 2).description.contains("§14.7"))
    }
}
