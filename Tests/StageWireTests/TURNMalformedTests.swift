import Testing
@testable import StageWire

/// One TURN attribute that parses as STUN but is malformed, the accessor that reads it, and the
/// error it must throw (pion's `TestUnmarshal_ErrorHandling`, for RFC 8656 §18).
struct TURNAttributeMalformedCase: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    let read: @Sendable (STUNMessage) throws -> Void
    let error: STUNError
    var testDescription: String { name }
}

@Suite struct TURNMalformedTests {
    /// A 20-byte header (Allocate success, RFC 5769's transaction ID) with `length` bytes after it.
    static func header(_ length: UInt8) -> [UInt8] {
        [0x01, 0x03, 0x00, length, // Allocate success response, length
         0x21, 0x12, 0xA4, 0x42, // Magic cookie
         0xB7, 0xE7, 0xA7, 0x01, 0xBC, 0x34, 0xD6, 0x86, 0xFA, 0x87, 0xDF, 0xAE] // Transaction ID
    }

    static let cases: [TURNAttributeMalformedCase] = [
        TURNAttributeMalformedCase(
            name: "§18.1 CHANNEL-NUMBER below 0x4000",
            bytes: header(8) + [
                0x00, 0x0C, 0x00, 0x04, // CHANNEL-NUMBER, 4 bytes
                0x3F, 0xFF, 0x00, 0x00, // channel 0x3fff: not a channel
            ],
            read: { _ = try $0.channelNumber }, error: .invalidChannelNumber(0x3FFF)),
        TURNAttributeMalformedCase(
            name: "§18.1 CHANNEL-NUMBER in the reserved 0x5000–0x7fff",
            bytes: header(8) + [
                0x00, 0x0C, 0x00, 0x04, // CHANNEL-NUMBER, 4 bytes
                0x50, 0x00, 0x00, 0x00, // channel 0x5000: reserved
            ],
            read: { _ = try $0.channelNumber }, error: .invalidChannelNumber(0x5000)),
        TURNAttributeMalformedCase(
            name: "§18.1 CHANNEL-NUMBER of 2 bytes",
            bytes: header(8) + [
                0x00, 0x0C, 0x00, 0x02, // CHANNEL-NUMBER, 2 bytes
                0x40, 0x00, 0x00, 0x00, // channel, padding
            ],
            read: { _ = try $0.channelNumber }, error: .invalidAttributeLength(type: .channelNumber, length: 2)),
        TURNAttributeMalformedCase(
            name: "§18.2 LIFETIME of 2 bytes",
            bytes: header(8) + [
                0x00, 0x0D, 0x00, 0x02, // LIFETIME, 2 bytes
                0x02, 0x58, 0x00, 0x00, // 600, padding
            ],
            read: { _ = try $0.lifetime }, error: .invalidAttributeLength(type: .lifetime, length: 2)),
        TURNAttributeMalformedCase(
            name: "§18.3 XOR-PEER-ADDRESS with family 0x03",
            bytes: header(12) + [
                0x00, 0x12, 0x00, 0x08, // XOR-PEER-ADDRESS, 8 bytes
                0x00, 0x03, 0xA1, 0x47, // family 3: neither IPv4 nor IPv6
                0xE1, 0x12, 0xA6, 0x43, // X-Address
            ],
            read: { _ = try $0.xorPeerAddress }, error: .unknownAddressFamily(type: .xorPeerAddress, family: 3)),
        TURNAttributeMalformedCase(
            name: "§18.5 XOR-RELAYED-ADDRESS IPv4 truncated",
            bytes: header(8) + [
                0x00, 0x16, 0x00, 0x04, // XOR-RELAYED-ADDRESS, 4 bytes
                0x00, 0x01, 0xA1, 0x47, // IPv4 family and port, no address
            ],
            read: { _ = try $0.xorRelayedAddress }, error: .invalidAttributeLength(type: .xorRelayedAddress, length: 4)),
        TURNAttributeMalformedCase(
            name: "§18.5 second XOR-RELAYED-ADDRESS malformed",
            bytes: header(20) + [
                0x00, 0x16, 0x00, 0x08, // XOR-RELAYED-ADDRESS, 8 bytes
                0x00, 0x01, 0xA1, 0x47, // IPv4, port
                0xE1, 0x12, 0xA6, 0x43, // address
                0x00, 0x16, 0x00, 0x04, // XOR-RELAYED-ADDRESS, 4 bytes
                0x00, 0x02, 0xA1, 0x47, // IPv6 family and port, no address
            ],
            read: { _ = try $0.xorRelayedAddresses }, error: .invalidAttributeLength(type: .xorRelayedAddress, length: 4)),
        TURNAttributeMalformedCase(
            name: "§18.6 REQUESTED-ADDRESS-FAMILY 0x03",
            bytes: header(8) + [
                0x00, 0x17, 0x00, 0x04, // REQUESTED-ADDRESS-FAMILY, 4 bytes
                0x03, 0x00, 0x00, 0x00, // family 3, RFFU
            ],
            read: { _ = try $0.requestedAddressFamily },
            error: .unknownAddressFamily(type: .requestedAddressFamily, family: 3)),
        TURNAttributeMalformedCase(
            name: "§18.7 EVEN-PORT of 4 bytes",
            bytes: header(8) + [
                0x00, 0x18, 0x00, 0x04, // EVEN-PORT, 4 bytes (1 is right)
                0x80, 0x00, 0x00, 0x00, // R bit, 3 more bytes
            ],
            read: { _ = try $0.evenPort }, error: .invalidAttributeLength(type: .evenPort, length: 4)),
        TURNAttributeMalformedCase(
            name: "§18.8 REQUESTED-TRANSPORT of 1 byte",
            bytes: header(8) + [
                0x00, 0x19, 0x00, 0x01, // REQUESTED-TRANSPORT, 1 byte
                0x11, 0x00, 0x00, 0x00, // UDP, padding
            ],
            read: { _ = try $0.requestedTransport }, error: .invalidAttributeLength(type: .requestedTransport, length: 1)),
        TURNAttributeMalformedCase(
            name: "§18.10 RESERVATION-TOKEN of 4 bytes",
            bytes: header(8) + [
                0x00, 0x22, 0x00, 0x04, // RESERVATION-TOKEN, 4 bytes (8 is right)
                0x01, 0x02, 0x03, 0x04, // half a token
            ],
            read: { _ = try $0.reservationToken }, error: .invalidAttributeLength(type: .reservationToken, length: 4)),
        TURNAttributeMalformedCase(
            name: "§18.13 ICMP of 4 bytes",
            bytes: header(8) + [
                0x80, 0x04, 0x00, 0x04, // ICMP, 4 bytes (8 is right)
                0x00, 0x00, 0x06, 0x04, // type and code, no error data
            ],
            read: { _ = try $0.icmp }, error: .invalidAttributeLength(type: .icmp, length: 4)),
        TURNAttributeMalformedCase(
            name: "RFC 8489 §14.9 REALM not UTF-8",
            bytes: header(8) + [
                0x00, 0x14, 0x00, 0x02, // REALM, 2 bytes
                0xC3, 0x28, 0x00, 0x00, // invalid UTF-8, padding
            ],
            read: { _ = try $0.realm }, error: .invalidUTF8(type: .realm)),
    ]

    @Test(arguments: cases)
    func malformedAttributeThrows(_ testCase: TURNAttributeMalformedCase) throws {
        let message = try STUNMessage(parsing: testCase.bytes)
        #expect(thrownError(STUNError.self) { try testCase.read(message) } == testCase.error)
    }

    @Test func turnMessageWithWrongMagicIsNotSTUN() {
        var bytes = TURNMessageTests.allocateSuccess
        bytes[7] = 0x43  // magic cookie 0x2112a443
        #expect(stunError { () throws(STUNError) in try STUNMessage(parsing: bytes) } == .badMagicCookie(0x2112_A443))
    }
}
