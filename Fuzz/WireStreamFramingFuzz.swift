// libFuzzer target for StageWire's stream framers: RFC4571Framer (RFC 4571 §2, ICE-TCP), the
// RFC4571Scanner it and the media server's in-place ICE-TCP reader are built on, and
// TURNStreamSplitter (RFC 8656 §12.5). Build and run with scripts/fuzz.sh (target `framing`).
//
// The first input byte picks two chunk sizes; the rest is fed in chunks of those sizes.
// Checks, beyond "never crashes":
// - the frames do not depend on how the stream is chunked (whole vs. chunked);
// - RFC 4571 frames re-framed give back the consumed prefix of the input;
// - the scanner, used the way the server's reader uses it (append a read, scan in place, drop
//   the consumed prefix, latch a fatal outcome), gives the framer's frames and fatal error for
//   any chunking, never consumes past its input, leaves less than one whole frame behind, and
//   points a frameTooLarge at the prefix that declares it;
// - a scan stopped after k frames has consumed exactly those k frames;
// - once a framer reports a fatal error it keeps reporting the same one;
// - the buffered count never passes the limit.

private let rfc4571Maximum = 4096

private func rfc4571Frames(_ stream: ArraySlice<UInt8>, chunk: Int) -> (frames: [[UInt8]], error: FramingError?) {
    var framer = RFC4571Framer(maximumFrameLength: rfc4571Maximum, bufferLimit: 8192)
    var frames: [[UInt8]] = []
    var offset = stream.startIndex
    while offset < stream.endIndex {
        let end = min(offset + chunk, stream.endIndex)
        do {
            try framer.append(stream[offset ..< end])
            while let frame = try framer.nextFrame() { frames.append(frame) }
        } catch {
            guard error.isFatal else { fatalError("RFC 4571 framer threw a non-fatal error") }
            guard (try? framer.nextFrame()) == nil, (try? framer.append([0])) == nil else {
                fatalError("RFC 4571 framer recovered after a fatal error")
            }
            return (frames, error)
        }
        guard framer.bufferedCount <= framer.bufferLimit else { fatalError("RFC 4571 buffer over its limit") }
        offset = end
    }
    return (frames, nil)
}

/// The media server's reader (StageTransport's RFC4571StreamReader) in arrays: each read is
/// appended, scanned in place, and its consumed prefix dropped; a frameTooLarge ends the stream.
private func scannedFrames(_ stream: ArraySlice<UInt8>, chunk: Int) -> (frames: [[UInt8]], tooLarge: Int?) {
    var pending: [UInt8] = []
    var frames: [[UInt8]] = []
    var offset = stream.startIndex
    while offset < stream.endIndex {
        let end = min(offset + chunk, stream.endIndex)
        pending += stream[offset ..< end]
        let (consumed, outcome) = pending.withUnsafeMutableBytes { bytes in
            RFC4571Scanner.scan(bytes, maximumFrameLength: rfc4571Maximum) { frame in
                frames.append(Array(frame))
                return true
            }
        }
        guard consumed <= pending.count else { fatalError("the scan consumed past its input") }
        switch outcome {
        case .frameTooLarge(let length):
            guard pending.count - consumed >= RFC4571Scanner.prefixLength,
                  Int(pending[consumed]) << 8 | Int(pending[consumed + 1]) == length, length > rfc4571Maximum else {
                fatalError("frameTooLarge does not point at the prefix that declares it")
            }
            return (frames, length)
        case .stopped:
            fatalError("the scan stopped though its body never asked")
        case .needMoreBytes:
            pending.removeFirst(consumed)
            guard pending.count < RFC4571Scanner.prefixLength + rfc4571Maximum else { fatalError("a whole frame was left behind") }
        }
        offset = end
    }
    return (frames, nil)
}

/// A scan of `stream` that stops after `count` frames has consumed exactly those frames.
private func checkStop(_ stream: ArraySlice<UInt8>, after count: Int, frames: [[UInt8]]) {
    var bytes = Array(stream)
    var handed = 0
    let (consumed, outcome) = bytes.withUnsafeMutableBytes { buffer in
        RFC4571Scanner.scan(buffer, maximumFrameLength: rfc4571Maximum) { _ in
            handed += 1
            return handed < count
        }
    }
    guard outcome == .stopped else { return }
    let expected = frames.prefix(count).reduce(0) { $0 + RFC4571Scanner.prefixLength + $1.count }
    guard handed == count, consumed == expected else { fatalError("a stopped scan consumed \(consumed) bytes, not its \(count) frames' \(expected)") }
}

private func turnFrames(_ stream: ArraySlice<UInt8>, chunk: Int) -> (frames: [TURNStreamFrame], fatal: FramingError?) {
    var splitter = TURNStreamSplitter(bufferLimit: 0)
    var frames: [TURNStreamFrame] = []
    var offset = stream.startIndex
    while offset < stream.endIndex {
        let end = min(offset + chunk, stream.endIndex)
        do {
            try splitter.append(stream[offset ..< end])
        } catch {
            return (frames, error)
        }
        while true {
            do {
                guard let frame = try splitter.nextFrame() else { break }
                frames.append(frame)
            } catch where error.isFatal {
                guard (try? splitter.nextFrame()) == nil else { fatalError("splitter recovered after a fatal error") }
                return (frames, error)
            } catch {
                continue  // a malformed STUN message, skipped
            }
        }
        guard splitter.bufferedCount <= splitter.bufferLimit else { fatalError("splitter buffer over its limit") }
        offset = end
    }
    return (frames, nil)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWireStreamFraming(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let first = bytes.first else { return 0 }
    let chunk = Int(first % 17) + 1
    let stream = bytes.dropFirst()

    let whole = rfc4571Frames(stream, chunk: max(1, stream.count))
    let chunked = rfc4571Frames(stream, chunk: chunk)
    guard whole.frames == chunked.frames, whole.error == chunked.error else { fatalError("RFC 4571 frames depend on chunking") }
    var reframed: [UInt8] = []
    for frame in whole.frames {
        guard let framed = try? RFC4571Framer.frame(frame) else { fatalError("a read frame cannot be framed") }
        reframed += framed
    }
    guard stream.starts(with: reframed) else { fatalError("RFC 4571 frames do not re-frame to the input") }

    // The scanner agrees with the framer, whatever the chunks.
    for scanChunk in [chunk, Int(first / 17) % 13 + 1, max(1, stream.count)] {
        let scanned = scannedFrames(stream, chunk: scanChunk)
        guard scanned.frames == whole.frames else { fatalError("the scanner's frames differ from the framer's") }
        let framerTooLarge: Int? = if case .frameTooLarge(let length, _) = whole.error { length } else { nil }
        guard scanned.tooLarge == framerTooLarge else { fatalError("the scanner's fatal outcome differs from the framer's") }
    }
    checkStop(stream, after: Int(first % 5) + 1, frames: whole.frames)

    let turnWhole = turnFrames(stream, chunk: max(1, stream.count))
    let turnChunked = turnFrames(stream, chunk: chunk)
    guard turnWhole.frames == turnChunked.frames, turnWhole.fatal == turnChunked.fatal else {
        fatalError("TURN frames depend on chunking")
    }
    return 0
}
