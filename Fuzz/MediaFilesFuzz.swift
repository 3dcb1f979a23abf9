// libFuzzer target for StageMedia's file parsers: the YUV4MPEG2 reader (header and frames) and
// the RIFF WAVE reader, directly and through the looping FileCamera and FileMicrophone. Every
// input goes to both. Beyond "never crashes, never hangs":
// - a header that parses serializes to a header that parses back to the same value;
// - every frame has the header's size; a WAV's data never claims more bytes than the input has;
// - looping sources return after at most one rewind (an empty file ends, it does not spin);
// - the live-stream parsers (Y4MStreamParser, WAVStreamParser), fed the same bytes in pieces of
//   a size the input picks, give the file readers' frames and format, and only their errors.
//
// Built as two modules (no C modules): StageMedia's VideoFrame, AudioFrame and Files, then
// StageDevices' file sources with this harness (scripts/fuzz.sh has the commands).
// Run: scripts/fuzz.sh 200000 mediafiles. fatalError is used only here, to report a broken invariant.

@testable import StageMedia

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMediaFiles(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    fuzzY4M(bytes)
    fuzzWAV(bytes)
    fuzzY4MStream(bytes)
    fuzzWAVStream(bytes)
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

/// The pieces a live stream arrives in: a size from the input's first byte.
private func pieces(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
    let size = 1 + Int(bytes.first ?? 0) % 97
    return stride(from: 0, to: bytes.count, by: size).map { bytes[$0..<min(bytes.count, $0 + size)] }
}

private func fuzzY4MStream(_ bytes: [UInt8]) {
    var parser = Y4MStreamParser()
    var streamed: [VideoFrame] = []
    var streamError: Y4MError?
    outer: for piece in pieces(bytes) {
        parser.append(piece)
        do {
            while let frame = try parser.nextFrame() { streamed.append(frame) }
        } catch {
            streamError = error
            break outer
        }
    }
    var filed: [VideoFrame] = []
    var fileError: Y4MError?
    if var reader = try? Y4MReader(bytes: bytes) {
        while filed.count <= streamed.count + 1 {
            do {
                guard let frame = try reader.nextFrame() else { break }
                filed.append(frame)
            } catch {
                fileError = error
                break
            }
        }
    }
    // Every frame the stream gave, the file reader gives too, identical and in order.
    for (index, frame) in streamed.enumerated() {
        guard index < filed.count, filed[index].y == frame.y, filed[index].u == frame.u, filed[index].v == frame.v else {
            fatalError("Y4M stream frame \(index) differs from the file reader's")
        }
    }
    // A stream that stopped on an error: the file reader stops there too (not later).
    if streamError != nil, fileError == nil, filed.count > streamed.count {
        fatalError("Y4M stream refused what the file reader read: \(String(describing: streamError))")
    }
}

private func fuzzWAVStream(_ bytes: [UInt8]) {
    var parser = WAVStreamParser()
    for piece in pieces(bytes) {
        parser.append(piece)
        do {
            while let block = try parser.nextBlock(sampleFrames: 7) {
                guard let format = parser.format, block.count == 7 * format.channels else { fatalError("WAV stream block of \(block.count)") }
            }
        } catch {
            return
        }
    }
    if let reader = try? WAVReader(bytes: bytes), let format = parser.format, format != reader.format {
        fatalError("WAV stream format \(format) differs from the file reader's \(reader.format)")
    }
}
