// libFuzzer target for StageMedia's file parsers: the YUV4MPEG2 reader (header and frames) and
// the RIFF WAVE reader, directly and through the looping FileCamera and FileMicrophone. Every
// input goes to both. Beyond "never crashes, never hangs":
// - a header that parses serializes to a header that parses back to the same value;
// - every frame has the header's size; a WAV's data never claims more bytes than the input has;
// - looping sources return after at most one rewind (an empty file ends, it does not spin).
//
// Built with the device and file sources (no C modules) and VideoFrame.swift in one module:
//   swiftc -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 -module-name StageMedia -use-ld=lld \
//     -enable-upcoming-feature InternalImportsByDefault -enable-upcoming-feature ExistentialAny \
//     Sources/StageMedia/VideoFrame.swift Sources/StageMedia/Devices/*.swift \
//     Sources/StageMedia/Files/*.swift Fuzz/MediaFilesFuzz.swift -o .build-fuzz/mediafiles-fuzz
//   .build-fuzz/mediafiles-fuzz -runs=200000 -max_len=4096
// or scripts/fuzz.sh 200000 mediafiles. fatalError is used only here, to report a broken invariant.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMediaFiles(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    fuzzY4M(bytes)
    fuzzWAV(bytes)
    return 0
}

private func fuzzY4M(_ bytes: [UInt8]) {
    guard var reader = try? Y4MReader(bytes: bytes) else { return }
    let header = reader.header
    let line = header.serialized()
    if line.count <= Y4MHeader.maximumHeaderBytes {
        guard (try? Y4MHeader(parsing: line.dropLast())) == header else { fatalError("Y4M header round trip: \(header)") }
    }
    guard header.width > 0, header.height > 0, header.width * header.height <= Y4MHeader.maximumPixels else {
        fatalError("Y4M size \(header.width)×\(header.height) passed the caps")
    }
    var frames = 0
    while frames < 8, let frame = try? reader.nextFrame(captureTimeMicros: UInt64(frames)) {
        guard frame.width == header.width, frame.height == header.height, frame.captureTimeMicros == UInt64(frames) else {
            fatalError("Y4M frame of another size")
        }
        frames += 1
    }
    reader.rewind()
    var camera = FileCamera(reader: reader, loop: true)
    for _ in 0..<3 {
        guard let frame = try? camera.nextFrame(captureTimeMicros: 0) else { break }
        guard frame.width == camera.width, frame.height == camera.height else { fatalError("FileCamera frame of another size") }
    }
}

private func fuzzWAV(_ bytes: [UInt8]) {
    guard var reader = try? WAVReader(bytes: bytes) else { return }
    let channels = reader.format.channels
    guard channels == 1 || channels == 2 else { fatalError("WAV channels \(channels)") }
    guard reader.sampleFrameCount * reader.format.blockAlign <= bytes.count else {
        fatalError("WAV data of \(reader.sampleFrameCount) sample frames exceeds the \(bytes.count)-byte input")
    }
    var total = 0
    while true {
        guard let samples = try? reader.read(sampleFrames: 333) else { fatalError("WAV read failed in memory") }
        if samples.isEmpty { break }
        guard samples.count % channels == 0, samples.count <= 333 * channels else { fatalError("WAV read of \(samples.count) samples") }
        total += samples.count / channels
    }
    guard total == reader.sampleFrameCount else { fatalError("WAV read \(total) of \(reader.sampleFrameCount) sample frames") }
    reader.rewind()
    for loop in [false, true] {
        var microphone = FileMicrophone(reader: reader, loop: loop)
        for _ in 0..<3 {
            guard let frame = try? microphone.nextFrame(captureTimeMicros: 0) else { break }
            guard frame.channels == channels, frame.samplesPerChannel == AudioCapture.samplesPerChannel else {
                fatalError("FileMicrophone frame of \(frame.samples.count) samples")
            }
        }
    }
}
