// libFuzzer target for StageWire's stream framers: RFC4571Framer (RFC 4571 §2, ICE-TCP) and
// TURNStreamSplitter (RFC 8656 §12.5). Build and run with scripts/fuzz.sh (target `framing`).
//
// The first input byte picks a chunk size; the rest is fed in chunks of that size. Checks,
// beyond "never crashes":
// - the frames do not depend on how the stream is chunked (whole vs. chunked);
// - RFC 4571 frames re-framed give back the consumed prefix of the input;
// - once a framer reports a fatal error it keeps reporting the same one;
// - the buffered count never passes the limit.

private func rfc4571Frames(_ stream: ArraySlice<UInt8>, chunk: Int) -> (frames: [[UInt8]], error: FramingError?) {
    var framer = RFC4571Framer(maximumFrameLength: 4096, bufferLimit: 8192)
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

    let turnWhole = turnFrames(stream, chunk: max(1, stream.count))
    let turnChunked = turnFrames(stream, chunk: chunk)
    guard turnWhole.frames == turnChunked.frames, turnWhole.fatal == turnChunked.fatal else {
        fatalError("TURN frames depend on chunking")
    }
    return 0
}
