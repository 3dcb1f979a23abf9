public import StageMedia
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// A live camera fed by a YUV4MPEG2 stream on standard input or a FIFO, paced by whatever
/// writes it: `ffmpeg -f v4l2 -i /dev/video0 -f yuv4mpegpipe -`, `ffmpeg -f x11grab …`,
/// GStreamer's `y4menc`. A reader thread parses frames as they arrive (``Y4MStreamParser``)
/// and keeps the newest; the capture loop, polling several times per frame period, takes each
/// one once. A producer faster than the loop loses frames (counted), never queues them.
public final class Y4MPipeCamera: VideoSource, @unchecked Sendable {
    /// What the camera reads: `-` for standard input, else a path (a FIFO, or any file).
    public let path: String
    public let header: Y4MHeader
    private let state: Mutex<State>
    private let stopped = Atomic<Bool>(false)

    struct State {
        var parser: Y4MStreamParser
        var newest: VideoFrame?
        var framesRead = 0
        var framesTaken = 0
        var ended = false
        var failure: Y4MError?
    }

    /// Opens the stream and reads its header, waiting at most `headerTimeout` for it.
    /// - Throws: ``MediaDeviceError`` naming the path when it cannot be opened, ends or sends no
    ///   valid header in time.
    public convenience init(path: String, headerTimeout: Duration = .seconds(10)) throws(MediaDeviceError) {
        let descriptor: Int32 = path == "-" ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unavailable(device: Self.name(path), reason: String(cString: strerror(errno))) }
        try self.init(descriptor: descriptor, path: path, name: Self.name(path), waitsForWriter: path != "-", headerTimeout: headerTimeout)
    }

    /// Reads the stream on `descriptor` (which it then owns and closes).
    /// - Parameters:
    ///   - name: names the device in errors.
    ///   - waitsForWriter: a FIFO reads 0 bytes until a writer opens it; a pipe only at its end.
    init(descriptor: Int32, path: String, name: String, waitsForWriter: Bool, headerTimeout: Duration) throws(MediaDeviceError) {
        self.path = path
        var parser = Y4MStreamParser()
        var found: Y4MHeader?
        do {
            try PipeReading.readHeader(descriptor, name: name, header: "YUV4MPEG2 header", waitsForWriter: waitsForWriter, timeout: headerTimeout) {
                (bytes: ArraySlice<UInt8>) throws(MediaDeviceError) -> Bool in
                parser.append(bytes)
                do { found = try parser.readHeader() } catch { throw .unavailable(device: name, reason: "\(error)") }
                return found != nil
            }
        } catch {
            close(descriptor)
            throw error
        }
        header = found!
        state = Mutex(State(parser: parser))
        let thread = Thread { [self] in
            takeFrames(nil)   // frames already complete with the header's bytes
            PipeReading.readUntilEnd(descriptor, stopped: stopped) { bytes in takeFrames(bytes) }
            state.withLock { $0.ended = true }
        }
        thread.name = "y4m-pipe"
        thread.start()
    }

    deinit { stopped.store(true, ordering: .relaxed) }

    private static let readers = Mutex<[String: Y4MPipeCamera]>([:])

    /// The camera already reading `path`, or a new one. A stream has one reader: publishing
    /// again (after a reconnect or a strategy change) must take up the same stream, not race
    /// a second reader for its bytes. One that ended or broke is replaced.
    public static func shared(path: String, headerTimeout: Duration = .seconds(10)) throws(MediaDeviceError) -> Y4MPipeCamera {
        if let camera = readers.withLock({ $0[path] }), !camera.ended, camera.failure == nil { return camera }
        let camera = try Y4MPipeCamera(path: path, headerTimeout: headerTimeout)
        readers.withLock { $0[path] = camera }
        return camera
    }

    public var width: Int { header.width }
    public var height: Int { header.height }
    public var framerate: Double { header.framesPerSecond }
    /// Polled four times per frame period, so a frame waits at most a quarter period.
    public var pollsPerFrame: Int { 4 }

    /// Frames parsed from the stream, and those the capture loop took (the rest were replaced
    /// by a newer frame before it asked).
    public var counts: (read: Int, taken: Int) { state.withLock { ($0.framesRead, $0.framesTaken) } }
    /// Whether the producer closed the stream.
    public var ended: Bool { state.withLock { $0.ended } }
    /// The error that stopped reading, if the stream broke.
    public var failure: Y4MError? { state.withLock { $0.failure } }

    /// The newest frame not yet taken, or `nil` when none arrived since the last call.
    public func nextFrame(captureTimeMicros: UInt64) -> VideoFrame? {
        state.withLock { state in
            guard var frame = state.newest else { return nil }
            state.newest = nil
            state.framesTaken += 1
            frame.captureTimeMicros = captureTimeMicros
            return frame
        }
    }

    /// Stops reading (the thread ends at the next read or within 200 ms).
    public func stop() { stopped.store(true, ordering: .relaxed) }

    /// Appends `bytes` and keeps the newest complete frame. False once the stream is broken.
    @discardableResult
    private func takeFrames(_ bytes: ArraySlice<UInt8>?) -> Bool {
        state.withLock { state in
            if let bytes { state.parser.append(bytes) }
            do {
                while let frame = try state.parser.nextFrame() {
                    state.newest = frame
                    state.framesRead += 1
                }
                return true
            } catch {
                state.failure = error as? Y4MError
                return false
            }
        }
    }

    private static func name(_ path: String) -> String { path == "-" ? "camera on standard input" : "camera \(path)" }
}
