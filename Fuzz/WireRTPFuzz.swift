// libFuzzer target for the StageWire media parsers: RTP header + RFC 8285 extensions + in-place
// rewrites, RTCP compound packets (pipe messages among them), and the VP8 payload descriptor.
// Whatever parses must serialize and parse back to an equal value; any mismatch (or trap) is a
// finding.
//
// Built with the StageWire sources compiled into the same module:
//   swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name StageWire \
//     $(find Sources/StageWire -name '*.swift') Fuzz/WireRTPFuzz.swift -o .build-fuzz/rtp-fuzz
//   .build-fuzz/rtp-fuzz -runs=1000000 -max_len=1500
// fatalError is used only here, in the harness, to report a broken round trip.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRTP(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: start, count: count)
    fuzzRTPHeader(input)
    fuzzRetransmission(input)
    fuzzReplacedExtensions(input)
    fuzzRTCP(input)
    fuzzVP8(input)
    return 0
}

private func fuzzRTPHeader(_ input: UnsafeRawBufferPointer) {
    let start = RTPHeader.payloadStart(input)
    guard let (header, payload) = try? RTPHeader.parse(input) else { return }
    guard header.marshalSize == payload.lowerBound, payload.upperBound <= input.count else { fatalError("rtp layout") }
    // The quick walk agrees with the parse wherever the parse succeeds.
    guard start == payload.lowerBound else { fatalError("rtp payload start") }

    // Every element lies inside the extension block; decoding values must not trap.
    var elements = header.extensions(in: input)
    while let element = elements.next() {
        guard header.extensionRange.contains(element.valueRange.lowerBound) || element.valueRange.isEmpty,
            element.valueRange.upperBound <= header.extensionRange.upperBound
        else { fatalError("rtp extension element outside block") }
        let value = UnsafeRawBufferPointer(rebasing: input[element.valueRange])
        _ = try? RTPAbsSendTime(parsing: value)
        _ = try? RTPTransportSequenceNumber(parsing: value)
        _ = try? RTPAudioLevel(parsing: value)
        if let text = try? RTPIdentifierExtension(parsing: value) {
            guard (try? RTPIdentifierExtension(parsing: text.serialized())) == text else { fatalError("rtp text round trip") }
        }
    }

    // Header round trip: serialize with the same extension data, payload and padding length.
    var bytes: [UInt8] = []
    header.serialize(into: &bytes, extensionBody: UnsafeRawBufferPointer(rebasing: input[header.extensionRange]))
    bytes.append(contentsOf: input[payload])
    let paddingLength = input.count - payload.upperBound
    if paddingLength > 0 {
        bytes.append(contentsOf: repeatElement(0, count: paddingLength - 1))
        bytes.append(UInt8(paddingLength))
    }
    guard let (again, againPayload) = try? RTPHeader.parse(bytes), again == header,
        againPayload == payload, bytes[againPayload].elementsEqual(input[payload])
    else { fatalError("rtp header round trip") }

    // Owned packet round trip.
    guard let packet = try? RTPPacket(parsing: input), (try? RTPPacket(parsing: packet.serialized())) == packet else {
        fatalError("rtp packet round trip")
    }

    // In-place rewrites change exactly the fields asked.
    var copy = Array(input)
    copy.withUnsafeMutableBytes { buffer in
        guard (try? RTPHeader.rewrite(sequenceNumber: 0xBEEF, timestamp: 0xDEAD_BEEF, ssrc: 0x1234_5678, in: buffer)) != nil,
            (try? RTPHeader.setPayloadType(111, in: buffer)) != nil, (try? RTPHeader.setMarker(true, in: buffer)) != nil
        else { fatalError("rtp rewrite threw on a parsed packet") }
    }
    var expected = header
    expected.sequenceNumber = 0xBEEF
    expected.timestamp = 0xDEAD_BEEF
    expected.ssrc = 0x1234_5678
    expected.payloadType = 111
    expected.marker = true
    guard (try? RTPHeader.parse(copy))?.header == expected else { fatalError("rtp rewrite") }

    // Adding or replacing an extension element keeps the packet parseable and the value readable.
    var edited = Array(input)
    let value: [UInt8] = [0xAB, 0xCD]
    if (try? RTPHeader.setExtension(id: 5, bytes: value, in: &edited)) != nil {
        guard let (editedHeader, editedPayload) = try? RTPHeader.parse(edited),
            edited[editedPayload].elementsEqual(input[payload]),
            let range = edited.withUnsafeBytes({ editedHeader.extensionValueRange(id: 5, in: $0) }),
            edited[range].elementsEqual(value)
        else { fatalError("rtp setExtension") }
    }
}

/// RFC 4588: the input unwrapped as an RTX packet stays inside its buffer and parses as RTP with
/// the OSN, SSRC and PT it was given; wrapping a parsed packet and unwrapping it gives back its
/// header (timestamp as given, padding dropped) and payload.
private func fuzzRetransmission(_ input: UnsafeRawBufferPointer) {
    guard let (header, payload) = try? RTPHeader.parse(input) else { return }
    var rtx = Array(input)
    let unwrapped = rtx.withUnsafeMutableBytes { RTPRetransmission.unwrap($0, payload: payload, originalSSRC: 7, originalPayloadType: 96) }
    if let range = unwrapped {
        let osn = UInt16(input[payload.lowerBound]) << 8 | UInt16(input[payload.lowerBound + 1])
        guard range.upperBound == input.count, let (restored, _) = try? RTPHeader.parse(Array(rtx[range])),
              restored.sequenceNumber == osn, restored.ssrc == 7, restored.payloadType == 96
        else { fatalError("rtx unwrap") }
    } else if payload.count >= RTPRetransmission.originalSequenceSize {
        fatalError("rtx unwrap refused a packet with an OSN")
    }
    var output = [UInt8](repeating: 0, count: input.count + RTPRetransmission.originalSequenceSize)
    let length = output.withUnsafeMutableBytes { out in
        RTPRetransmission.wrap(input, payload: payload, into: out, ssrc: 9, payloadType: 97, sequenceNumber: 1,
                               originalSequence: header.sequenceNumber, timestamp: header.timestamp)
    }
    guard let length, length == payload.upperBound + RTPRetransmission.originalSequenceSize,
          let (wrapped, wrappedPayload) = try? RTPHeader.parse(Array(output[..<length])), !wrapped.padding
    else { fatalError("rtx wrap") }
    var back = Array(output[..<length])
    guard let range = back.withUnsafeMutableBytes({ RTPRetransmission.unwrap($0, payload: wrappedPayload, originalSSRC: header.ssrc,
                                                                                originalPayloadType: header.payloadType) }),
          case let restored = Array(back[range]), let (again, againPayload) = try? RTPHeader.parse(restored)
    else { fatalError("rtx round trip") }
    var expected = header
    expected.padding = false
    guard again == expected, restored[againPayload].elementsEqual(input[payload]) else { fatalError("rtx round trip changed the packet") }
}

/// RFC 8285 §4.2: any input copied with its extension block replaced stays within the destination;
/// a parsed packet comes out parseable, with the same fixed fields, CSRCs, payload and padding,
/// and exactly the one new element.
private func fuzzReplacedExtensions(_ input: UnsafeRawBufferPointer) {
    let destination = UnsafeMutableRawBufferPointer.allocate(byteCount: input.count + 8, alignment: 8)
    defer { destination.deallocate() }
    let length = RTPHeader.copy(input, replacingExtensionsWith: 3, value: RTPAbsSendTime(value: 0xABCDEF), into: destination)
    if let length, length > destination.count { fatalError("replaced extensions: wrote past the destination") }
    guard let (header, payload) = try? RTPHeader.parse(input) else { return }
    guard let length, case let copied = Array(destination[..<length]), let (again, againPayload) = try? RTPHeader.parse(copied),
          again.sequenceNumber == header.sequenceNumber, again.timestamp == header.timestamp, again.ssrc == header.ssrc,
          again.payloadType == header.payloadType, again.marker == header.marker, again.csrcs == header.csrcs,
          again.padding == header.padding, copied[againPayload].elementsEqual(input[payload]),
          copied[againPayload.upperBound...].elementsEqual(input[payload.upperBound...])
    else { fatalError("replaced extensions: a parsed packet did not copy") }
    guard copied.withUnsafeBytes({ buffer in
        var ids: [UInt8] = []
        var iterator = again.extensions(in: buffer)
        while let element = iterator.next() { ids.append(element.id) }
        return ids == [3] && (try? again.extensionValue(RTPAbsSendTime.self, id: 3, in: buffer))?.value == 0xABCDEF
    }) else { fatalError("replaced extensions: not exactly the one element") }
}

private func fuzzRTCP(_ input: UnsafeRawBufferPointer) {
    // The lenient walk must never trap, whatever it meets.
    var iterator = RTCPCompoundIterator(input)
    var steps = 0
    while steps < 1_000 {
        steps += 1
        do {
            guard let packet = try iterator.next() else { break }
            if case let .transportCCFeedback(feedback) = packet { _ = feedback.packetResults() }
            if case let .genericNACK(nack) = packet { _ = nack.lostSequenceNumbers }
        } catch {
            continue
        }
    }

    guard let packets = try? RTCPPacket.parseCompound(input) else { return }
    guard let bytes = try? RTCPPacket.serializeCompound(packets) else { fatalError("rtcp serialize failed on parsed packets") }
    guard bytes.count == packets.reduce(0, { $0 + $1.marshalSize }) else { fatalError("rtcp marshalSize") }
    guard let again = try? RTCPPacket.parseCompound(bytes), again == packets else { fatalError("rtcp round trip") }
    for packet in packets {
        guard let single = try? packet.serialized(), (try? RTCPPacket(parsing: single)) == packet else {
            fatalError("rtcp single round trip")
        }
        // A pipe message (RTCP APP "PRSC") serializes back to one that reads the same.
        guard case .raw(let raw) = packet, let message = PipeMessage(raw) else { continue }
        var bytes: [UInt8] = []
        message.serialize(sender: 1, into: &bytes)
        guard let again = try? RTCPPacket(parsing: bytes), case .raw(let rawAgain) = again, PipeMessage(rawAgain) == message else {
            fatalError("pipe message round trip")
        }
    }
}

private func fuzzVP8(_ input: UnsafeRawBufferPointer) {
    _ = VP8PayloadDescriptor.isKeyframe(input)
    _ = try? VP8PayloadDescriptor.keyframeDimensions(input)
    guard let (descriptor, size) = try? VP8PayloadDescriptor.parse(input) else { return }
    guard size <= input.count else { fatalError("vp8 size") }
    let bytes = descriptor.serialized()
    guard bytes.count == descriptor.marshalSize, let (again, _) = try? VP8PayloadDescriptor.parse(bytes), again == descriptor else {
        fatalError("vp8 round trip")
    }

    var copy = Array(input)
    let newSize = copy.withUnsafeMutableBytes { try? VP8PayloadDescriptor.rewrite(pictureID: 0x1234, tl0PicIdx: 0x56, in: $0) }
    guard newSize == size, let (rewritten, _) = try? VP8PayloadDescriptor.parse(copy) else { fatalError("vp8 rewrite") }
    var expected = descriptor
    if descriptor.pictureID != nil { expected.pictureID = descriptor.longPictureID ? 0x1234 : 0x34 }
    if descriptor.tl0PicIdx != nil { expected.tl0PicIdx = 0x56 }
    guard rewritten == expected else { fatalError("vp8 rewrite fields") }

    // The SFU's splice: the same values back change no byte; one more moves each field by one.
    var same = Array(input)
    _ = same.withUnsafeMutableBytes { try? VP8PayloadDescriptor.mapPictureFields(in: $0) { ($0?.value, $1) } }
    guard same == Array(input) else { fatalError("vp8 map identity") }
    var moved = Array(input)
    _ = moved.withUnsafeMutableBytes { try? VP8PayloadDescriptor.mapPictureFields(in: $0) { ($0.map { $0.value &+ 1 }, $1.map { $0 &+ 1 }) } }
    guard moved.count == input.count, Array(moved[size...]) == Array(input[size...]), let (shifted, _) = try? VP8PayloadDescriptor.parse(moved) else {
        fatalError("vp8 map")
    }
    var plusOne = descriptor
    if let id = descriptor.pictureID { plusOne.pictureID = (id &+ 1) & (descriptor.longPictureID ? 0x7FFF : 0x7F) }
    if let index = descriptor.tl0PicIdx { plusOne.tl0PicIdx = index &+ 1 }
    guard shifted == plusOne else { fatalError("vp8 map fields") }
}
