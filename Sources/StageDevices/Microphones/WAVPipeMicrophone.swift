public import StageMedia
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// A live microphone fed by a WAV stream (16-bit PCM, 48 kHz, mono or stereo) on standard
/// input, a FIFO, or ffmpeg's output (`FFmpegMicrophone`): `ffmpeg -f alsa -i hw:0 -ac 1
/// -ar 48000 -f wav -`. A reader thread cuts it into 20 ms blocks (``WAVStreamParser``); the
/// capture loop, polling every 5 ms, takes each as it comes; past ``maxQueuedBlocks`` the
/// oldest goes (counted), so a producer faster than real time cannot build up a delay.
public final class WAVPipeMicrophone: AudioSource, @unchecked Sendable {
    public static let maxQueuedBlocks = 2
    public let path: String
    public let channels: Int
    private let state: Mutex<State>
    private let stopped = Atomic<Bool>(false)

    struct State {
        var parser: WAVStreamParser
        var queue: [[Int16]] = []
        var read = 0
        var dropped = 0
        var ended = false
        var failure: WAVError?
    }

    private static let readers = Mutex<[String: WAVPipeMicrophone]>([:])

    /// The microphone already reading `path`, or a new one (one reader per stream).
    public static func shared(path: String, headerTimeout: Duration = .seconds(10)) throws(MediaDeviceError) -> WAVPipeMicrophone {
        if let microphone = readers.withLock({ $0[path] }), !microphone.ended, microphone.failure == nil { return microphone }
        let descriptor: Int32 = path == "-" ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        let name = path == "-" ? "microphone on standard input" : "microphone \(path)"
        guard descriptor >= 0 else { throw .unavailable(device: name, reason: String(cString: strerror(errno))) }
        let microphone = try WAVPipeMicrophone(descriptor: descriptor, path: path, name: name, waitsForWriter: path != "-",
                                               headerTimeout: headerTimeout)
        readers.withLock { $0[path] = microphone }
        return microphone
    }

    /// Reads the stream on `descriptor` (which it then owns and closes).
    init(descriptor: Int32, path: String, name: String, waitsForWriter: Bool, headerTimeout: Duration) throws(MediaDeviceError) {
        self.path = path
        var parser = WAVStreamParser()
        do {
            try PipeReading.readHeader(descriptor, name: name, header: "WAV header", waitsForWriter: waitsForWriter, timeout: headerTimeout) {
                (bytes: ArraySlice<UInt8>) throws(MediaDeviceError) -> Bool in
                parser.append(bytes)
                do { return try parser.readHeader() != nil } catch { throw .unavailable(device: name, reason: "\(error)") }
            }
        } catch {
            close(descriptor)
            throw error
        }
        channels = parser.format?.channels ?? 1
        state = Mutex(State(parser: parser))
        let thread = Thread { [self] in
            PipeReading.readUntilEnd(descriptor, stopped: stopped) { bytes in self.take(bytes) }
            state.withLock { $0.ended = true }
        }
        thread.name = "wav-pipe"
        thread.start()
    }

    /// Polled every 5 ms, so a block waits at most that long.
    public var pollsPerFrame: Int { 4 }
    public var ended: Bool { state.withLock { $0.ended } }
    public var failure: WAVError? { state.withLock { $0.failure } }
    /// Blocks cut from the stream, and dropped because the capture loop fell behind.
    public var counts: (read: Int, dropped: Int) { state.withLock { ($0.read, $0.dropped) } }

    public func nextFrame(captureTimeMicros: UInt64) -> AudioFrame? {
        state.withLock { state in
            guard !state.queue.isEmpty else { return nil }
            return AudioFrame(channels: channels, samples: state.queue.removeFirst(), captureTimeMicros: captureTimeMicros)
        }
    }

    public func stop() { stopped.store(true, ordering: .relaxed) }

    /// Appends `bytes`, queues the complete blocks. False once the stream is broken.
    private func take(_ bytes: ArraySlice<UInt8>) -> Bool {
        state.withLock { state in
            state.parser.append(bytes)
            do {
                while let block = try state.parser.nextBlock(sampleFrames: AudioCapture.samplesPerChannel) {
                    state.read += 1
                    state.queue.append(block)
                    if state.queue.count > Self.maxQueuedBlocks {
                        state.queue.removeFirst()
                        state.dropped += 1
                    }
                }
                return true
            } catch {
                state.failure = error as? WAVError
                return false
            }
        }
    }
}
