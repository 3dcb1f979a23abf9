// libFuzzer target for StageMedia's RTP receive path: the VP8 depacketizer, the video and audio
// jitter buffers and the RTCP receiver statistics, fed pseudo packets cut from the input (each
// a control byte, a length byte and payload bytes; optionally a well-formed VP8 descriptor is
// put in front so whole frames complete). None may trap; beyond that:
// - packetize → depacketize returns the frame, and through a jitter buffer too;
// - the jitter buffers never hold more than their bound;
// - unwrapped sequence numbers keep their low 16 bits.
//
// StageWire is compiled as its own module first (so `import StageWire` works as in SwiftPM),
// then StageMedia's RTP and Jitter folders — which import no C module — with this file:
//   mkdir -p .build-fuzz/depacketizer
//   swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name StageWire \
//     -enable-upcoming-feature InternalImportsByDefault -enable-upcoming-feature ExistentialAny \
//     -emit-module -emit-module-path .build-fuzz/depacketizer/StageWire.swiftmodule \
//     -emit-library -static -o .build-fuzz/depacketizer/libStageWire.a $(find Sources/StageWire -name '*.swift')
//   swiftc -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 -module-name StageMedia \
//     -enable-upcoming-feature InternalImportsByDefault -enable-upcoming-feature ExistentialAny -use-ld=lld \
//     -I .build-fuzz/depacketizer -L .build-fuzz/depacketizer -lStageWire \
//     Sources/StageMedia/RTP/*.swift Sources/StageMedia/Jitter/*.swift Fuzz/MediaDepacketizerFuzz.swift \
//     -o .build-fuzz/depacketizer-fuzz
//   .build-fuzz/depacketizer-fuzz -runs=200000 -max_len=4096
// (scripts/fuzz.sh 200000 depacketizer does all of it; lld links the static archive without
// gold's flood of "cannot export local symbol __asan_*" warnings.) fatalError is used only here, in the
// harness, to report a broken invariant.
import StageWire

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMediaDepacketizer(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = Array(UnsafeRawBufferPointer(start: start, count: count))
    fuzzRoundTrip(input)
    let packets = pseudoPackets(input)
    fuzzDepacketizer(packets.map(\.packet))
    fuzzVideoJitterBuffer(packets)
    fuzzAudioJitterBuffer(packets)
    fuzzReceiverStatistics(packets)
    return 0
}

/// One pseudo packet and the harness's choices for it.
private struct FuzzPacket {
    var packet: ReceivedRTPPacket
    /// Microseconds since the previous packet.
    var elapsed: UInt64
    var control: UInt8
}

/// Cuts the input into packets: per packet a control byte (sequence step, marker, timestamp
/// step, descriptor), a length byte (low 6 bits) and that many payload bytes.
private func pseudoPackets(_ input: [UInt8]) -> [FuzzPacket] {
    guard input.count >= 3 else { return [] }
    var sequence = UInt16(input[0]) << 8 | UInt16(input[1])
    var timestamp = UInt32(input[2]) << 24
    var pictureID: UInt16 = 0
    var packets: [FuzzPacket] = []
    var index = 3
    while index + 2 <= input.count, packets.count < 512 {
        let control = input[index], lengthByte = input[index + 1]
        index += 2
        let length = min(Int(lengthByte & 0x3F), input.count - index)
        var payload = Array(input[index..<(index + length)])
        index += length
        switch control & 0x07 {
        case 0, 1, 2: sequence &+= 1
        case 3: break  // duplicate
        case 4: sequence &-= UInt16(lengthByte >> 6) + 1  // reorder back
        case 5: sequence &+= UInt16(lengthByte >> 6) + 2  // gap
        case 6: sequence &+= UInt16(lengthByte) << 6  // jump
        default: sequence = UInt16(truncatingIfNeeded: Int(lengthByte) &* 257)  // anywhere
        }
        if control & 0x10 != 0 {
            timestamp &+= 3000
            pictureID = (pictureID &+ 1) & 0x7FFF
        }
        if control & 0x20 != 0 {
            // A well-formed descriptor; with S set and P = 0 in the first data byte a keyframe start.
            // With bit 6 of the length byte, the temporal fields of an L1T3 stream (TID 0, 2, 1, 2
            // by PictureID; TL0PICIDX, Y and N to match) that the loss skipping reads.
            let startsFrame = control & 0x40 != 0
            let temporal = lengthByte & 0x40 != 0, phase = Int(pictureID & 3)
            var bytes = VP8PayloadDescriptor(
                nonReferenceFrame: temporal && phase % 2 == 1, startOfPartition: startsFrame, pictureID: pictureID,
                tl0PicIdx: temporal ? UInt8(truncatingIfNeeded: pictureID >> 2) : nil,
                temporalLayerID: temporal ? [0, 2, 1, 2][phase] : nil, layerSync: phase == 1 || phase == 2).serialized()
            if startsFrame { bytes += [lengthByte & 0x80 == 0 ? 0x10 : 0x11, 0, 0] }
            payload = bytes + payload
        }
        let packet = ReceivedRTPPacket(sequenceNumber: sequence, timestamp: timestamp, marker: control & 0x08 != 0, payload: payload)
        packets.append(FuzzPacket(packet: packet, elapsed: UInt64(control >> 5) * 7_000, control: control))
    }
    return packets
}

/// Packetizing the input and depacketizing it must give it back, directly and via the buffer.
private func fuzzRoundTrip(_ input: [UInt8]) {
    guard input.count >= 3 else { return }
    let maxPayload = 10 + Int(input[0])
    let frame: [UInt8] = [0x10, 0x00, 0x00] + input.dropFirst(3)  // a keyframe tag
    var packetizer = VP8Packetizer(maxPayloadSize: maxPayload, initialPictureID: UInt16(input[1]) << 8 | UInt16(input[2]))
    let pictureID = packetizer.nextPictureID
    let payloads = packetizer.packetize(frame)
    guard payloads.allSatisfy({ $0.count <= maxPayload }) else { fatalError("payload over the limit") }
    let first = UInt16(input[1]) << 8 | UInt16(input[0])
    let packets = payloads.indices.map { index in
        ReceivedRTPPacket(sequenceNumber: first &+ UInt16(index), timestamp: 1, marker: index == payloads.count - 1, payload: payloads[index])
    }
    guard let assembled = try? VP8Depacketizer.assemble(packets) else { fatalError("round trip does not assemble") }
    guard assembled.data == frame, assembled.pictureID == pictureID, assembled.isKeyframe else { fatalError("round trip differs") }

    var buffer = VideoJitterBuffer()
    var emitted: [ReceivedVP8Frame] = []
    for packet in packets.reversed() {
        _ = buffer.insert(packet, now: 0)
        emitted += buffer.popCompleteFrames(now: 0, rtt: 0)
    }
    // Reversed arrival: the start comes last, within the start window only for short frames.
    if packets.count <= 64 {
        guard emitted.map(\.data) == [frame], !buffer.keyframeNeeded else { fatalError("jitter buffer round trip differs") }
    }
}

private func fuzzDepacketizer(_ packets: [ReceivedRTPPacket]) {
    var group: [ReceivedRTPPacket] = []
    for packet in packets {
        group.append(packet)
        guard packet.marker else { continue }
        if let frame = try? VP8Depacketizer.assemble(group) {
            guard frame.packetCount == group.count, frame.data.count < group.reduce(0, { $0 + $1.payload.count }) else {
                fatalError("assembled frame inconsistent")
            }
        }
        group.removeAll()
    }
    _ = try? VP8Depacketizer.assemble(group)
}

private func fuzzVideoJitterBuffer(_ packets: [FuzzPacket]) {
    var buffer = VideoJitterBuffer(configuration: .init(maxPackets: 64, maxNacksPerPacket: 3, startReorderWindow: 8))
    var now: UInt64 = 1_000
    var emitted = 0
    for entry in packets {
        now += entry.elapsed
        _ = buffer.insert(entry.packet, now: now)
        let rtt = UInt64(entry.control & 0x03) * 40_000
        emitted += buffer.popCompleteFrames(now: now, rtt: rtt).count
        if entry.control & 0x80 != 0 {
            _ = buffer.genericNACK(now: now, rtt: rtt, senderSSRC: 1, mediaSSRC: 2)
            _ = buffer.pictureLossIndication(now: now, senderSSRC: 1, mediaSSRC: 2)
        }
        guard buffer.heldPacketCount <= 64, buffer.missing.count <= 64 else { fatalError("jitter buffer over its bound") }
    }
    emitted += buffer.popCompleteFrames(now: now + 10_000_000, rtt: 0).count
    let statistics = buffer.statistics
    guard statistics.packetsReceived == packets.count, statistics.framesEmitted == emitted, emitted <= packets.count,
        statistics.lossesSkipped <= packets.count else {
        fatalError("jitter buffer counters inconsistent")
    }
}

private func fuzzAudioJitterBuffer(_ packets: [FuzzPacket]) {
    var buffer = AudioJitterBuffer(configuration: .init(targetDelayPackets: 2, maxDelayPackets: 6, maxJump: 20))
    var unwrapper = SequenceNumberUnwrapper()
    for entry in packets {
        _ = buffer.insert(entry.packet)
        guard UInt16(truncatingIfNeeded: unwrapper.unwrap(entry.packet.sequenceNumber)) == entry.packet.sequenceNumber else {
            fatalError("unwrap lost the low bits")
        }
        for _ in 0..<Int(entry.control >> 6) { _ = buffer.tick() }
        guard buffer.heldPacketCount <= 20 + 1 else { fatalError("audio buffer over its bound") }
    }
    for _ in 0..<8 { _ = buffer.tick() }
}

private func fuzzReceiverStatistics(_ packets: [FuzzPacket]) {
    var statistics = ReceiverStatistics(ssrc: 1, clockRate: 90_000)
    var now: UInt64 = 0
    for entry in packets {
        now &+= entry.elapsed
        statistics.record(sequenceNumber: entry.packet.sequenceNumber, rtpTimestamp: entry.packet.timestamp, arrivalMicros: now)
        if entry.control & 0xC0 == 0xC0 {
            statistics.recordSenderReport(ntpTime: UInt64(entry.packet.timestamp) << 20, arrivalMicros: now)
        }
        if entry.control & 0x07 == 0x07, let block = statistics.makeReportBlock(nowMicros: now) {
            _ = RTCPTiming.roundTripTime(report: block, arrivalNTPTime: UInt64(now) << 16)
            var bytes: [UInt8] = []
            guard (try? RTCPReceiverReport(ssrc: 1, reports: [block]).serialize(into: &bytes)) != nil else { fatalError("report does not serialize") }
        }
    }
}
