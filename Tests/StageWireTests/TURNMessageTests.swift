import Testing
@testable import StageWire

/// TURN's methods and attributes (RFC 8656 §17–§18) read from and written to commented bytes.
@Suite struct TURNMessageTests {
    /// RFC 5769's transaction ID, so the XOR-encoded addresses below are those of its §2.2 and
    /// §2.3 vectors (192.0.2.1:32853 and [2001:db8:1234:5678:11:2233:4455:6677]:32853).
    static let transactionID = STUNTransactionID(high: 0xB7E7_A701, middle: 0xBC34_D686, low: 0xFA87_DFAE)
    static let peerV4 = STUNAddress(ip: .v4(0xC000_0201), port: 32853)
    static let peerV6 = STUNAddress(ip: IPAddress("2001:db8:1234:5678:11:2233:4455:6677")!, port: 32853)

    @Test("RFC 8656 §17: message type values", arguments: [
        (STUNMessageType.allocateRequest, UInt16(0x0003)), (.allocateSuccess, 0x0103), (.allocateError, 0x0113),
        (.refreshRequest, 0x0004), (.refreshSuccess, 0x0104), (.refreshError, 0x0114),
        (.sendIndication, 0x0016), (.dataIndication, 0x0017),
        (.createPermissionRequest, 0x0008), (.createPermissionSuccess, 0x0108), (.createPermissionError, 0x0118),
        (.channelBindRequest, 0x0009), (.channelBindSuccess, 0x0109), (.channelBindError, 0x0119),
    ])
    func rfc8656Section17MessageTypes(type: STUNMessageType, raw: UInt16) {
        #expect(type.rawValue == raw)
        #expect(STUNMessageType(rawValue: raw) == type)
    }

    @Test func namesForLogs() {
        #expect(STUNMessageType.allocateRequest.description == "Allocate request")
        #expect(STUNMessageType.dataIndication.description == "Data indication")
        #expect(STUNMethod(rawValue: 0x0AB).description == "method 0x00ab")
        #expect(STUNAttributeType.xorRelayedAddress.description == "XOR-RELAYED-ADDRESS")
        #expect(STUNAttributeType.additionalAddressFamily.description == "ADDITIONAL-ADDRESS-FAMILY")
        #expect(STUNAttributeType.icmp.description == "ICMP")
        #expect(STUNAttributeType.understoodByTURNClient.contains(.xorPeerAddress))
        #expect(!STUNAttributeType.additionalAddressFamily.isComprehensionRequired)
    }

    /// An Allocate success response (RFC 8656 §7.3).
    static let allocateSuccess: [UInt8] = [
        0x01, 0x03, 0x00, 0x20, // Allocate success response, length 32
        0x21, 0x12, 0xA4, 0x42, // Magic cookie
        0xB7, 0xE7, 0xA7, 0x01, 0xBC, 0x34, 0xD6, 0x86, 0xFA, 0x87, 0xDF, 0xAE, // Transaction ID
        0x00, 0x16, 0x00, 0x08, // XOR-RELAYED-ADDRESS, 8 bytes
        0x00, 0x01, 0xA1, 0x47, // IPv4, port 32853 XOR 0x2112
        0xE1, 0x12, 0xA6, 0x43, // 192.0.2.1 XOR magic cookie
        0x00, 0x20, 0x00, 0x08, // XOR-MAPPED-ADDRESS, 8 bytes
        0x00, 0x01, 0xA1, 0x47, // IPv4, port 32853 XOR 0x2112
        0xE1, 0x12, 0xA6, 0x43, // 192.0.2.1 XOR magic cookie
        0x00, 0x0D, 0x00, 0x04, // LIFETIME, 4 bytes
        0x00, 0x00, 0x02, 0x58, // 600 s
    ]

    @Test func rfc8656Section7_3AllocateSuccessResponse() throws {
        let message = try STUNMessage(parsing: Self.allocateSuccess)
        #expect(message.type == .allocateSuccess)
        #expect(try message.xorRelayedAddress == Self.peerV4)
        #expect(try message.xorRelayedAddresses == [Self.peerV4])
        #expect(try message.xorMappedAddress == Self.peerV4)
        #expect(try message.lifetime == 600)
        #expect(message.unknownComprehensionRequired(understood: STUNAttributeType.understoodByTURNClient).isEmpty)

        var builder = STUNMessageBuilder(type: .allocateSuccess, transactionID: Self.transactionID)
        builder.appendXORRelayedAddress(Self.peerV4)
        builder.appendXORMappedAddress(Self.peerV4)
        builder.appendLifetime(600)
        #expect(builder.finish() == Self.allocateSuccess)
    }

    /// A Data indication (RFC 8656 §11.3) from an IPv6 peer.
    static let dataIndication: [UInt8] = [
        0x00, 0x17, 0x00, 0x24, // Data indication, length 36
        0x21, 0x12, 0xA4, 0x42, // Magic cookie
        0xB7, 0xE7, 0xA7, 0x01, 0xBC, 0x34, 0xD6, 0x86, 0xFA, 0x87, 0xDF, 0xAE, // Transaction ID
        0x00, 0x12, 0x00, 0x14, // XOR-PEER-ADDRESS, 20 bytes
        0x00, 0x02, 0xA1, 0x47, // IPv6, port 32853 XOR 0x2112
        0x01, 0x13, 0xA9, 0xFA, // }
        0xA5, 0xD3, 0xF1, 0x79, // }  2001:db8:1234:5678:11:2233:4455:6677
        0xBC, 0x25, 0xF4, 0xB5, // }  XOR magic cookie ‖ transaction ID
        0xBE, 0xD2, 0xB9, 0xD9, // }
        0x00, 0x13, 0x00, 0x05, // DATA, 5 bytes
        0x68, 0x65, 0x6C, 0x6C, // "hell"
        0x6F, 0x00, 0x00, 0x00, // "o", 3 bytes of padding
    ]

    @Test func rfc8656Section11_3DataIndication() throws {
        let message = try STUNMessage(parsing: Self.dataIndication)
        #expect(message.type == .dataIndication)
        #expect(try message.xorPeerAddress == Self.peerV6)
        #expect(message.data.map(Array.init) == Array("hello".utf8))

        var builder = STUNMessageBuilder(type: .dataIndication, transactionID: Self.transactionID)
        builder.appendXORPeerAddress(Self.peerV6)
        try builder.appendData(Array("hello".utf8))
        #expect(builder.finish() == Self.dataIndication)
    }

    /// A ChannelBind request (RFC 8656 §12.1) without credentials.
    static let channelBind: [UInt8] = [
        0x00, 0x09, 0x00, 0x14, // ChannelBind request, length 20
        0x21, 0x12, 0xA4, 0x42, // Magic cookie
        0xB7, 0xE7, 0xA7, 0x01, 0xBC, 0x34, 0xD6, 0x86, 0xFA, 0x87, 0xDF, 0xAE, // Transaction ID
        0x00, 0x0C, 0x00, 0x04, // CHANNEL-NUMBER, 4 bytes
        0x40, 0x00, 0x00, 0x00, // channel 0x4000, RFFU
        0x00, 0x12, 0x00, 0x08, // XOR-PEER-ADDRESS, 8 bytes
        0x00, 0x01, 0xA1, 0x47, // IPv4, port 32853 XOR 0x2112
        0xE1, 0x12, 0xA6, 0x43, // 192.0.2.1 XOR magic cookie
    ]

    @Test func rfc8656Section12_1ChannelBindRequest() throws {
        let message = try STUNMessage(parsing: Self.channelBind)
        #expect(try message.channelNumber == 0x4000)
        #expect(try message.xorPeerAddress == Self.peerV4)
        var builder = STUNMessageBuilder(type: .channelBindRequest, transactionID: Self.transactionID)
        try builder.appendChannelNumber(0x4000)
        builder.appendXORPeerAddress(Self.peerV4)
        #expect(builder.finish() == Self.channelBind)
    }

    /// An Allocate request with every optional attribute a client may send (RFC 8656 §7.1).
    static let allocateRequest: [UInt8] = [
        0x00, 0x03, 0x00, 0x38, // Allocate request, length 56
        0x21, 0x12, 0xA4, 0x42, // Magic cookie
        0xB7, 0xE7, 0xA7, 0x01, 0xBC, 0x34, 0xD6, 0x86, 0xFA, 0x87, 0xDF, 0xAE, // Transaction ID
        0x00, 0x19, 0x00, 0x04, // REQUESTED-TRANSPORT, 4 bytes
        0x11, 0x00, 0x00, 0x00, // UDP (17), RFFU
        0x00, 0x17, 0x00, 0x04, // REQUESTED-ADDRESS-FAMILY, 4 bytes
        0x01, 0x00, 0x00, 0x00, // IPv4, RFFU
        0x80, 0x00, 0x00, 0x04, // ADDITIONAL-ADDRESS-FAMILY, 4 bytes
        0x02, 0x00, 0x00, 0x00, // IPv6, RFFU
        0x00, 0x18, 0x00, 0x01, // EVEN-PORT, 1 byte
        0x80, 0x00, 0x00, 0x00, // R bit set, 3 bytes of padding
        0x00, 0x1A, 0x00, 0x00, // DONT-FRAGMENT, no value
        0x00, 0x22, 0x00, 0x08, // RESERVATION-TOKEN, 8 bytes
        0x01, 0x02, 0x03, 0x04, // }
        0x05, 0x06, 0x07, 0x08, // }  token
        0x00, 0x0D, 0x00, 0x04, // LIFETIME, 4 bytes
        0x00, 0x00, 0x0E, 0x10, // 3600 s
    ]

    @Test func rfc8656Section7_1AllocateRequestAttributes() throws {
        let message = try STUNMessage(parsing: Self.allocateRequest)
        #expect(try message.requestedTransport == 17)
        #expect(try message.requestedAddressFamily == .ipv4)
        #expect(try message.additionalAddressFamily == .ipv6)
        #expect(try message.evenPort == true)
        #expect(message.dontFragment)
        #expect(try message.reservationToken == 0x0102_0304_0506_0708)
        #expect(try message.lifetime == 3600)
        #expect(try message.xorRelayedAddress == nil)
        #expect(try message.icmp == nil)

        var builder = STUNMessageBuilder(type: .allocateRequest, transactionID: Self.transactionID)
        builder.appendRequestedTransport()
        builder.appendRequestedAddressFamily(.ipv4)
        builder.appendAdditionalAddressFamily(.ipv6)
        builder.appendEvenPort(reserveNext: true)
        builder.appendDontFragment()
        builder.appendReservationToken(0x0102_0304_0506_0708)
        builder.appendLifetime(3600)
        #expect(builder.finish() == Self.allocateRequest)
    }

    @Test func rfc8656Section18_13ICMP() throws {
        let bytes: [UInt8] = [
            0x00, 0x17, 0x00, 0x0C, // Data indication, length 12
            0x21, 0x12, 0xA4, 0x42, // Magic cookie
            0xB7, 0xE7, 0xA7, 0x01, 0xBC, 0x34, 0xD6, 0x86, 0xFA, 0x87, 0xDF, 0xAE, // Transaction ID
            0x80, 0x04, 0x00, 0x08, // ICMP, 8 bytes
            0x00, 0x00, 0x06, 0x04, // reserved, type 3 (7 bits), code 4 (9 bits): fragmentation needed
            0x00, 0x00, 0x05, 0xDC, // error data: MTU 1500
        ]
        let message = try STUNMessage(parsing: bytes)
        #expect(try message.icmp == TURNICMP(type: 3, code: 4, errorData: 1500))
        var builder = STUNMessageBuilder(type: .dataIndication, transactionID: Self.transactionID)
        builder.appendICMP(TURNICMP(type: 3, code: 4, errorData: 1500))
        #expect(builder.finish() == bytes)
    }

    @Test func severalPeerAddressesInOneCreatePermission() throws {
        var builder = STUNMessageBuilder(type: .createPermissionRequest, transactionID: Self.transactionID)
        builder.appendXORPeerAddress(Self.peerV4)
        builder.appendXORPeerAddress(Self.peerV6)
        let message = try STUNMessage(parsing: builder.finish(fingerprint: true))
        #expect(try message.xorPeerAddresses == [Self.peerV4, Self.peerV6])
    }

    @Test func rfc8656Section12ChannelNumbersOutOfRangeAreRefusedWhenBuilding() {
        var builder = STUNMessageBuilder(type: .channelBindRequest)
        #expect(stunError { () throws(STUNError) in try builder.appendChannelNumber(0x3FFF) } == .invalidChannelNumber(0x3FFF))
        #expect(stunError { () throws(STUNError) in try builder.appendChannelNumber(0x5000) } == .invalidChannelNumber(0x5000))
    }
}
