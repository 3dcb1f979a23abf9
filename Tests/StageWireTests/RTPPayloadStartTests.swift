import Testing
@testable import StageWire

/// `RTPHeader.payloadStart`: the quick walk over a checked header (RFC 3550 §5.1, §5.3.1).
struct RTPPayloadStartTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var start: Int?
        var testDescription: String { name }
    }

    static let fixed: [UInt8] = [0x80, 96, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3]

    @Test("where the payload starts, or nil when the header does not fit", arguments: [
        Case(name: "empty", bytes: [], start: nil),
        Case(name: "11 bytes", bytes: Array(fixed.prefix(11)), start: nil),
        Case(name: "fixed header only", bytes: fixed, start: 12),
        Case(name: "fixed header and payload", bytes: fixed + [1, 2, 3], start: 12),
        Case(name: "two CSRCs", bytes: [0x82] + fixed.dropFirst() + [UInt8](repeating: 7, count: 8) + [9], start: 20),
        Case(name: "two CSRCs announced, one there", bytes: [0x82] + fixed.dropFirst() + [UInt8](repeating: 7, count: 4), start: nil),
        Case(name: "extension of one word", bytes: [0x90] + fixed.dropFirst() + [0xBE, 0xDE, 0, 1, 0x10, 0xAA, 0, 0, 5], start: 20),
        Case(name: "extension header cut", bytes: [0x90] + fixed.dropFirst() + [0xBE, 0xDE, 0], start: nil),
        Case(name: "extension longer than the packet", bytes: [0x90] + fixed.dropFirst() + [0xBE, 0xDE, 0, 9, 0, 0, 0, 0], start: nil),
        Case(name: "CSRC and extension", bytes: [0x91] + fixed.dropFirst() + [0, 0, 0, 4] + [0xBE, 0xDE, 0, 0], start: 20),
    ])
    func payloadStart(_ test: Case) {
        #expect(test.bytes.withUnsafeBytes { RTPHeader.payloadStart($0) } == test.start)
        if let start = test.start, let parsed = try? RTPHeader.parse(test.bytes) {
            #expect(parsed.payload.lowerBound == start, "agrees with the parse")
        }
    }
}
