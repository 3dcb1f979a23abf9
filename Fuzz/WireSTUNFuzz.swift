// libFuzzer target for StageWire's STUN parser and builder, the RFC 7983 demultiplexer and the
// IP address text reader. Build and run with scripts/fuzz.sh (swiftc -sanitize=fuzzer,address).
//
// Checks, beyond "never crashes":
// - every typed accessor of a parsed message either returns or throws;
// - a parsed message rebuilt attribute by attribute parses to the same attributes, and with
//   MESSAGE-INTEGRITY + FINGERPRINT appended it verifies with the same key;
// - an address that parses prints a form that parses back to it.

/// A stand-in keyed MAC (not HMAC) so the harness needs no crypto: deterministic in key and data.
private func fakeMAC(_ key: [UInt8], _ data: UnsafeRawBufferPointer) -> [UInt8] {
    var state = [UInt8](repeating: 0x5C, count: 20)
    for (index, byte) in key.enumerated() { state[index % 20] ^= byte }
    for (index, byte) in data.enumerated() { state[index % 20] = state[index % 20] &* 31 &+ byte }
    return state
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWireSTUN(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let buffer = UnsafeRawBufferPointer(start: start, count: count)
    let bytes = Array(buffer)

    let kind = Demux.classify(buffer)
    guard kind == Demux.classify(bytes) else { fatalError("demux disagrees between buffer and array") }
    if STUNMessage.looksLikeSTUN(buffer), kind != .stun { fatalError("STUN cookie but not STUN range") }

    if let text = String(validating: bytes.prefix(64), as: UTF8.self), let address = IPAddress(text) {
        guard IPAddress(address.description) == address else { fatalError("IP text round trip: \(text)") }
        guard IPAddress(bytes: address.bytes) == address else { fatalError("IP bytes round trip") }
    }

    guard let message = try? STUNMessage(parsing: bytes) else { return 0 }
    if bytes[0] <= 3, kind != .stun { fatalError("parsed STUN outside the STUN demux range") }
    _ = try? message.username
    _ = try? message.software
    _ = try? message.xorMappedAddress
    _ = try? message.mappedAddress
    _ = try? message.errorCode
    _ = try? message.unknownAttributes
    _ = try? message.priority
    _ = try? message.iceControlled
    _ = try? message.iceControlling
    _ = message.useCandidate
    _ = message.messageIntegrity
    _ = message.messageIntegritySHA256
    _ = message.fingerprint
    _ = message.unknownComprehensionRequired()
    _ = message.verifyIntegrity(key: [1, 2, 3], hmacSHA1: fakeMAC)
    _ = message.verifyIntegritySHA256(key: [1, 2, 3], hmacSHA256: fakeMAC)

    // Rebuild the attributes that count, then protect the copy.
    var builder = STUNMessageBuilder(type: message.type, transactionID: message.transactionID)
    for attribute in message.protectedAttributes {
        do {
            try builder.append(attribute.type, value: message.value(of: attribute))
        } catch {
            return 0  // the original was near 64 KiB; the copy would not fit with integrity
        }
    }
    let plain = builder.bytes
    guard let reparsed = try? STUNMessage(parsing: plain) else { fatalError("rebuilt message does not parse") }
    guard reparsed.type == message.type, reparsed.transactionID == message.transactionID,
          Array(reparsed.attributes.map { reparsed.value(of: $0) }) == Array(message.protectedAttributes.map { message.value(of: $0) })
    else { fatalError("rebuilt attributes differ") }
    guard plain.count + 32 <= STUNMessageBuilder.maximumLength + STUNMessage.headerLength else { return 0 }
    let protected = builder.finish(integrityKey: [7, 7], hmacSHA1: fakeMAC)
    guard let signed = try? STUNMessage(parsing: protected) else { fatalError("protected message does not parse") }
    guard signed.verifyIntegrity(key: [7, 7], hmacSHA1: fakeMAC), signed.hasFingerprint else {
        fatalError("integrity of the rebuilt message does not verify")
    }
    return 0
}
