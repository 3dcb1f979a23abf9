import Testing
@testable import StageWire

@Suite struct STUNMessageTests {
    /// RFC 8489 §5: type values of the Binding method in each class.
    @Test(arguments: [
        (STUNMessageType.bindingRequest, UInt16(0x0001)),
        (STUNMessageType.bindingIndication, UInt16(0x0011)),
        (STUNMessageType.bindingSuccess, UInt16(0x0101)),
        (STUNMessageType.bindingError, UInt16(0x0111)),
    ])
    func rfc8489Section5MessageTypeBits(_ type: STUNMessageType, _ raw: UInt16) {
        #expect(type.rawValue == raw)
        #expect(STUNMessageType(rawValue: raw) == type)
    }

    /// RFC 8489 §5: every method and class survives the bit interleaving.
    @Test func rfc8489Section5AllMethodsAndClassesRoundTrip() {
        for method in UInt16(0)...0x0FFF {
            for messageClass in STUNClass.allCases {
                let type = STUNMessageType(method: STUNMethod(rawValue: method), messageClass: messageClass)
                #expect(type.rawValue & 0xC000 == 0)
                #expect(STUNMessageType(rawValue: type.rawValue) == type)
            }
        }
    }

    /// IEEE 802.3 CRC-32 check value.
    @Test func crc32CheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
    }

    /// What the ICE agent does: parse a Binding request, check it, answer it.
    @Test func rfc8445Section7_3AnswerBindingRequest() throws {
        let remotePassword = "remote-password-123456"
        let localPassword = "local-password-1234567"
        let id = STUNTransactionID.random()
        var request = STUNMessageBuilder(type: .bindingRequest, transactionID: id)
        try request.appendUsername("localU:remoteU")
        request.appendPriority(1_853_824_767)
        request.appendICEControlling(tieBreaker: 0x0123_4567_89AB_CDEF)
        request.appendUseCandidate()
        let requestBytes = request.finish(integrityKey: STUNMessage.shortTermKey(password: localPassword), hmacSHA1: hmacSHA1)
        #expect(Demux.classify(requestBytes) == .stun)

        let parsed = try STUNMessage(parsing: requestBytes)
        #expect(parsed.type == .bindingRequest)
        #expect(try parsed.username == "localU:remoteU")
        #expect(try parsed.priority == 1_853_824_767)
        #expect(try parsed.iceControlling == 0x0123_4567_89AB_CDEF)
        #expect(parsed.useCandidate)
        #expect(parsed.hasFingerprint)
        #expect(parsed.verifyIntegrity(key: STUNMessage.shortTermKey(password: localPassword), hmacSHA1: hmacSHA1))
        #expect(!parsed.verifyIntegrity(key: STUNMessage.shortTermKey(password: remotePassword), hmacSHA1: hmacSHA1))

        let source = STUNAddress(ip: try #require(IPAddress("203.0.113.9")), port: 50_000)
        let responseBytes = STUNMessageBuilder.bindingSuccess(
            transactionID: parsed.transactionID, source: source, localPassword: localPassword, hmacSHA1: hmacSHA1)
        let response = try STUNMessage(parsing: responseBytes)
        #expect(response.type == .bindingSuccess)
        #expect(response.transactionID == id)
        #expect(try response.xorMappedAddress == source)
        #expect(response.verifyIntegrity(key: STUNMessage.shortTermKey(password: localPassword), hmacSHA1: hmacSHA1))
        #expect(response.hasFingerprint)
    }

    @Test func rfc8445Section7_3_1_1RoleConflictResponse() throws {
        let id = STUNTransactionID(high: 1, middle: 2, low: 3)
        let bytes = try STUNMessageBuilder.bindingError(
            transactionID: id, error: STUNErrorCode(code: STUNErrorCode.roleConflict, reason: "Role Conflict"),
            localPassword: "pw", hmacSHA1: hmacSHA1)
        let message = try STUNMessage(parsing: bytes)
        #expect(message.type == .bindingError)
        #expect(try message.errorCode == STUNErrorCode(code: 487, reason: "Role Conflict"))
        #expect(message.verifyIntegrity(key: Array("pw".utf8), hmacSHA1: hmacSHA1))
    }

    @Test func rfc8489Section14_9UnknownAttributesRoundTrip() throws {
        let bytes = try STUNMessageBuilder.bindingError(
            transactionID: .random(), error: STUNErrorCode(code: 420, reason: "Unknown Attribute"),
            unknownAttributes: [STUNAttributeType(rawValue: 0x0031), STUNAttributeType(rawValue: 0x7FFF), .realm])
        let message = try STUNMessage(parsing: bytes)
        #expect(try message.unknownAttributes == [STUNAttributeType(rawValue: 0x0031), STUNAttributeType(rawValue: 0x7FFF), .realm])
        #expect(try message.errorCode?.code == 420)
    }

    @Test func rfc8489Section6_3_1UnknownComprehensionRequiredAttributes() throws {
        var builder = STUNMessageBuilder(type: .bindingRequest)
        try builder.append(STUNAttributeType(rawValue: 0x0031), value: [1, 2, 3, 4])  // required, unknown
        try builder.append(STUNAttributeType(rawValue: 0xC001), value: [1])  // optional, ignored
        try builder.append(STUNAttributeType(rawValue: 0x0031), value: [5])  // duplicate
        let message = try STUNMessage(parsing: builder.finish())
        #expect(message.unknownComprehensionRequired() == [STUNAttributeType(rawValue: 0x0031)])
    }

    /// RFC 8489 §14.5: attributes after MESSAGE-INTEGRITY (other than FINGERPRINT) are ignored.
    @Test func rfc8489Section14_5AttributesAfterIntegrityIgnored() throws {
        var builder = STUNMessageBuilder(type: .bindingRequest)
        try builder.appendUsername("a:b")
        builder.appendMessageIntegrity(key: [1], hmacSHA1: hmacSHA1)
        builder.appendPriority(7)
        let message = try STUNMessage(parsing: builder.finish(fingerprint: true))
        #expect(try message.priority == nil)
        #expect(message.attributes.map(\.type) == [.username, .messageIntegrity, .priority, .fingerprint])
        #expect(message.protectedAttributes.map(\.type) == [.username])
        #expect(message.verifyIntegrity(key: [1], hmacSHA1: hmacSHA1))
    }

    /// RFC 8489 §14.6: MESSAGE-INTEGRITY-SHA256 is recognised and can be checked.
    @Test func rfc8489Section14_6IntegritySHA256() throws {
        var builder = STUNMessageBuilder(type: .bindingRequest)
        try builder.appendUsername("a:b")
        let prefix = builder.bytes
        // Compute the MAC the way a sender would: length counts the 36-byte attribute.
        let mac = STUNMessage.mac(of: prefix, upTo: prefix.count, macLength: 32, key: [9], hmac: hmacSHA256)
        try builder.append(.messageIntegritySHA256, value: mac)
        let message = try STUNMessage(parsing: builder.finish(fingerprint: true))
        #expect(message.messageIntegritySHA256.map(Array.init) == mac)
        #expect(message.verifyIntegritySHA256(key: [9], hmacSHA256: hmacSHA256))
        #expect(!message.verifyIntegritySHA256(key: [8], hmacSHA256: hmacSHA256))
        #expect(!message.verifyIntegrity(key: [9], hmacSHA1: hmacSHA1))  // no SHA-1 attribute
    }

    @Test func rfc8489Section14_1MappedAddressIPv6RoundTrip() throws {
        let address = STUNAddress(ip: try #require(IPAddress("2001:db8::1")), port: 3478)
        var builder = STUNMessageBuilder(type: .bindingSuccess)
        builder.appendMappedAddress(address)
        builder.appendXORMappedAddress(address)
        builder.appendICEControlled(tieBreaker: .max)
        let message = try STUNMessage(parsing: builder.finish())
        #expect(try message.mappedAddress == address)
        #expect(try message.xorMappedAddress == address)
        #expect(try message.iceControlled == .max)
        #expect(!message.hasFingerprint)
    }

    @Test func builderRejectsOversizedText() {
        var builder = STUNMessageBuilder(type: .bindingRequest)
        let long = String(repeating: "x", count: 764)
        #expect(stunError { () throws(STUNError) in try builder.appendSoftware(long) } ==
            .valueTooLong(type: .software, length: 764, limit: 763))
    }

    @Test func looksLikeSTUNOnlyWithCookie() {
        STUNRFC5769VectorTests.sampleRequest.withUnsafeBytes { #expect(STUNMessage.looksLikeSTUN($0)) }
        [UInt8](repeating: 0, count: 20).withUnsafeBytes { #expect(!STUNMessage.looksLikeSTUN($0)) }
    }

    @Test func transactionIDBytesRoundTrip() throws {
        let id = STUNTransactionID.random()
        #expect(STUNTransactionID(bytes: id.bytes) == id)
        #expect(id.description.count == 24)
        #expect(STUNTransactionID(bytes: [1, 2, 3]) == nil)
    }
}

@Suite struct IPAddressTests {
    @Test(arguments: [
        ("192.0.2.1", "192.0.2.1"),
        ("0.0.0.0", "0.0.0.0"),
        ("2001:db8:1234:5678:11:2233:4455:6677", "2001:db8:1234:5678:11:2233:4455:6677"),
        ("2001:DB8:0:0:0:0:0:1", "2001:db8::1"),       // RFC 5952 §4.2.1, §4.3
        ("::", "::"),
        ("::1", "::1"),
        ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),  // RFC 5952 §4.2.2: one zero group stays
        ("2001:0:0:1:0:0:0:1", "2001:0:0:1::1"),        // RFC 5952 §4.2.3: longest run
        ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),  // RFC 5952 §4.2.3: first of equal runs
        ("::ffff:192.0.2.1", "::ffff:c000:201"),
    ])
    func rfc5952TextForms(_ input: String, _ canonical: String) throws {
        let address = try #require(IPAddress(input))
        #expect(address.description == canonical)
        #expect(IPAddress(canonical) == address)
        #expect(IPAddress(bytes: address.bytes) == address)
    }

    @Test(arguments: ["", "1.2.3", "1.2.3.256", "1.2.3.4.5", ":::", "1::2::3", "12345::", "1:2:3:4:5:6:7:8:9",
                      "1:2:3:4:5:6:7", "host.local", "::1%eth0", "1:", ":1", "-1.2.3.4"])
    func invalidTextForms(_ input: String) {
        #expect(IPAddress(input) == nil)
    }
}
