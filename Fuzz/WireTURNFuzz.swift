// libFuzzer target for StageWire's TURN pieces: the RFC 8656 §18 attribute readers, ChannelData
// (§12.4) and long-term credential integrity (RFC 8489 §9.2). Build and run with
// scripts/fuzz.sh (target `turn`).
//
// Checks, beyond "never crashes":
// - every TURN accessor of a parsed message either returns or throws;
// - a ChannelData datagram that parses serializes back to its bytes (padding aside);
// - addresses read from XOR-PEER-ADDRESS / XOR-RELAYED-ADDRESS rebuild to the same values;
// - a request rebuilt with long-term credentials verifies with the same key.

/// A stand-in keyed MAC and digest (not HMAC, not MD5) so the harness needs no crypto.
private func fakeMAC(_ key: [UInt8], _ data: UnsafeRawBufferPointer) -> [UInt8] {
    var state = [UInt8](repeating: 0x36, count: 20)
    for (index, byte) in key.enumerated() { state[index % 20] ^= byte }
    for (index, byte) in data.enumerated() { state[index % 20] = state[index % 20] &* 33 &+ byte }
    return state
}

private func fakeDigest(_ data: UnsafeRawBufferPointer) -> [UInt8] {
    var state = [UInt8](repeating: 0x5A, count: 16)
    for (index, byte) in data.enumerated() { state[index % 16] = state[index % 16] &* 31 &+ byte }
    return state
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWireTURN(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))

    if let channelData = try? TURNChannelData(parsing: bytes) {
        guard STUNMessage.channelNumbers.contains(channelData.channel) else { fatalError("channel out of range") }
        guard let plain = try? channelData.serialized(), let padded = try? channelData.serialized(padded: true) else {
            fatalError("parsed ChannelData does not serialize")
        }
        // §12.5: padding may hold any value, so only the unpadded prefix must match.
        guard bytes == plain || (bytes.count == padded.count && bytes.starts(with: plain)) else {
            fatalError("ChannelData round trip differs")
        }
        guard (try? TURNChannelData(parsing: padded)) == channelData else { fatalError("padded ChannelData differs") }
    }

    guard let message = try? STUNMessage(parsing: bytes) else { return 0 }
    _ = try? message.channelNumber
    _ = try? message.lifetime
    _ = try? message.requestedAddressFamily
    _ = try? message.additionalAddressFamily
    _ = try? message.evenPort
    _ = try? message.requestedTransport
    _ = try? message.reservationToken
    _ = try? message.icmp
    _ = try? message.realm
    _ = try? message.nonce
    _ = message.data
    _ = message.dontFragment
    _ = message.unknownComprehensionRequired(understood: STUNAttributeType.understoodByTURNClient)
    let key = STUNMessage.longTermKey(username: "u", realm: "r", password: "p", md5: fakeDigest)
    _ = message.verifyIntegrity(key: key, hmacSHA1: fakeMAC)

    // Rebuild the addresses and check they read back the same.
    let peers = (try? message.xorPeerAddresses) ?? []
    let relayed = (try? message.xorRelayedAddresses) ?? []
    var builder = STUNMessageBuilder(type: message.type, transactionID: message.transactionID)
    for peer in peers { builder.appendXORPeerAddress(peer) }
    for address in relayed { builder.appendXORRelayedAddress(address) }
    if let lifetime = try? message.lifetime { builder.appendLifetime(lifetime) }
    if let channel = try? message.channelNumber {
        do { try builder.appendChannelNumber(channel) } catch { fatalError("a channel read back is refused") }
    }
    if let data = message.data, (try? builder.appendData(data)) == nil { return 0 }
    if let realm = try? message.realm, let nonce = try? message.nonce {
        guard (try? builder.appendLongTermCredentials(username: "u", realm: realm, nonce: nonce)) != nil else { return 0 }
    }
    guard builder.bytes.count + 32 <= STUNMessageBuilder.maximumLength + STUNMessage.headerLength else { return 0 }
    let rebuilt = builder.finish(integrityKey: key, hmacSHA1: fakeMAC)
    guard let reparsed = try? STUNMessage(parsing: rebuilt) else { fatalError("rebuilt TURN message does not parse") }
    guard (try? reparsed.xorPeerAddresses) == peers, (try? reparsed.xorRelayedAddresses) == relayed else {
        fatalError("rebuilt addresses differ")
    }
    guard reparsed.data == message.data.map({ $0 }) || message.data == nil else { fatalError("rebuilt DATA differs") }
    guard reparsed.verifyIntegrity(key: key, hmacSHA1: fakeMAC) else { fatalError("rebuilt integrity does not verify") }
    return 0
}
