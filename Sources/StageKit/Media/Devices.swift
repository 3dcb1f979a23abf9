public import StageMedia
import StageDevices
import Synchronization

public typealias VideoFrame = StageMedia.VideoFrame
public typealias AudioFrame = StageMedia.AudioFrame

/// Where a local device's media comes from.
public enum DeviceSource: Sendable, Hashable {
    /// A moving test pattern carrying a machine-readable frame number and capture time.
    case testPattern
    /// A sine tone.
    case tone(frequency: Double)
    /// A YUV4MPEG2 (4:2:0, 8 bit) file, played at its frame rate.
    case y4mFile(path: String, loop: Bool)
    /// A WAV file (PCM 16 bit, 48 kHz, mono or stereo).
    case wavFile(path: String, loop: Bool)
    /// A live YUV4MPEG2 stream on standard input (`-`) or a FIFO, paced by its producer.
    case y4mPipe(path: String)
    /// The screen of an X display (nil: `$DISPLAY`), captured by `ffmpeg -f x11grab`.
    case screen(display: String?)
    /// A V4L2 camera (`/dev/video0`), captured by `ffmpeg -f v4l2`.
    case webcam(device: String)
    /// A live WAV stream (16-bit, 48 kHz) on standard input (`-`) or a FIFO.
    case wavPipe(path: String)
    /// An ALSA capture device (`default`, `hw:0`), recorded by `ffmpeg -f alsa`.
    case alsaMicrophone(device: String)
    /// A PulseAudio source (nil: the server's default), mono.
    case pulseMicrophone(device: String?)
}

/// Lists the capture devices of this machine (IVS `IVSDeviceDiscovery`): first a synthetic
/// camera and microphone, then the V4L2 webcams, the X screens and the PulseAudio sources found
/// (`StageDevices`). Files and pipes are devices too (`DeviceDescriptor.camera(file:)`, `camera(pipe:)`).
public struct DeviceDiscovery: Sendable {
    public init() {}

    public func listLocalDevices() -> [DeviceDescriptor] {
        var devices = [DeviceDescriptor(deviceId: "camera-test", kind: .video, friendlyName: "Test pattern camera", source: .testPattern),
                       DeviceDescriptor(deviceId: "mic-tone", kind: .audio, friendlyName: "Tone microphone", source: .tone(frequency: 440))]
        devices += WebcamList.list().map { .webcam($0.device) }
        devices += ScreenList.list().map { .screen(display: $0.display) }
        devices += ((try? PulseDeviceList.list())?.sources ?? []).map { .microphone(pulse: $0.name) }
        return devices
    }

    /// The first camera and the first microphone of ``listLocalDevices()``: what an app that
    /// does not let its user choose publishes.
    public func defaultDevices() -> [DeviceDescriptor] {
        let devices = listLocalDevices()
        return [MediaKind.video, .audio].compactMap { kind in devices.first { $0.kind == kind } }
    }
}

extension DeviceDescriptor {
    /// A camera playing a Y4M file.
    public static func camera(file path: String, loop: Bool = true) -> DeviceDescriptor {
        DeviceDescriptor(deviceId: "camera-file", kind: .video, friendlyName: path, source: .y4mFile(path: path, loop: loop))
    }

    /// A live camera reading YUV4MPEG2 from standard input (`-`) or a FIFO (`Y4MPipeCamera`).
    public static func camera(pipe path: String) -> DeviceDescriptor {
        DeviceDescriptor(deviceId: "camera-pipe", kind: .video, friendlyName: path == "-" ? "standard input" : path,
                         source: .y4mPipe(path: path))
    }

    /// The screen of X display `display` (nil: `$DISPLAY`) as a camera (`ScreenCamera`).
    public static func screen(display: String? = nil) -> DeviceDescriptor {
        DeviceDescriptor(deviceId: "screen", kind: .video, friendlyName: "Screen \(display ?? "$DISPLAY")", source: .screen(display: display))
    }

    /// A V4L2 webcam (`/dev/video0`) as a camera (`FFmpegCamera.webcam`).
    public static func webcam(_ device: String) -> DeviceDescriptor {
        DeviceDescriptor(deviceId: "webcam", kind: .video, friendlyName: device, source: .webcam(device: device))
    }

    /// A microphone recorded through PulseAudio: `device` is a source name (nil: the default).
    public static func microphone(pulse device: String?) -> DeviceDescriptor {
        DeviceDescriptor(deviceId: "mic-pulse", kind: .audio, friendlyName: "PulseAudio \(device ?? "default source")",
                         source: .pulseMicrophone(device: device))
    }

    /// A live microphone reading WAV from standard input (`-`) or a FIFO (`WAVPipeMicrophone`).
    public static func microphone(pipe path: String) -> DeviceDescriptor {
        DeviceDescriptor(deviceId: "mic-pipe", kind: .audio, friendlyName: path == "-" ? "standard input" : path,
                         source: .wavPipe(path: path))
    }

    /// An ALSA capture device (`FFmpegMicrophone.alsa`), where no sound server runs.
    public static func microphone(alsa device: String) -> DeviceDescriptor {
        DeviceDescriptor(deviceId: "mic-alsa", kind: .audio, friendlyName: "ALSA \(device)", source: .alsaMicrophone(device: device))
    }

    /// A microphone playing a WAV file.
    public static func microphone(file path: String, loop: Bool = true) -> DeviceDescriptor {
        DeviceDescriptor(deviceId: "mic-file", kind: .audio, friendlyName: path, source: .wavFile(path: path, loop: loop))
    }
}

/// A device behind a stream (IVS `IVSDevice`): a local capture device, or the decoder of a
/// received stream. Callbacks run on a media thread, never the main actor; keep them short.
public protocol StageDevice: AnyObject, Sendable {
    var descriptor: DeviceDescriptor { get }
}

/// A compressed VP8 frame as received, before decoding (for recording it as is).
public struct EncodedVideoFrameData: Sendable {
    public var data: [UInt8]
    public var isKeyframe: Bool
    /// RTP timestamp, 90 kHz.
    public var timestamp: UInt32
    /// The picture size, in keyframes (RFC 6386 §9.1).
    public var width: Int?
    public var height: Int?
}

/// Pictures: captured ones for a local camera, decoded ones for a received video stream.
public final class ImageDevice: StageDevice {
    public let descriptor: DeviceDescriptor
    private let onFrame = Mutex<(@Sendable (VideoFrame) -> Void)?>(nil)
    private let onEncoded = Mutex<(@Sendable (EncodedVideoFrameData) -> Void)?>(nil)

    init(descriptor: DeviceDescriptor) { self.descriptor = descriptor }

    /// Called with every frame (decoded for a received stream, captured for a local one).
    public func setOnFrameCallback(_ callback: (@Sendable (VideoFrame) -> Void)?) { onFrame.withLock { $0 = callback } }
    /// Received streams: called with every complete VP8 frame before it is decoded, in decode order.
    public func setOnEncodedFrameCallback(_ callback: (@Sendable (EncodedVideoFrameData) -> Void)?) { onEncoded.withLock { $0 = callback } }

    func deliver(_ frame: VideoFrame) { onFrame.withLock { $0 }?(frame) }
    func deliverEncoded(_ frame: EncodedVideoFrameData) { onEncoded.withLock { $0 }?(frame) }
}

/// Peak and RMS level of a block of audio, in dBFS.
public struct AudioDeviceStats: Sendable, Hashable {
    public var peak: Double
    public var rms: Double
}

/// Sound: captured PCM for a local microphone, decoded PCM for a received audio stream.
public final class AudioDevice: StageDevice {
    public let descriptor: DeviceDescriptor
    private let onAudio = Mutex<(@Sendable (AudioFrame) -> Void)?>(nil)
    private let onStats = Mutex<(@Sendable (AudioDeviceStats) -> Void)?>(nil)
    private let onEncoded = Mutex<(@Sendable ([UInt8]) -> Void)?>(nil)

    init(descriptor: DeviceDescriptor) { self.descriptor = descriptor }

    /// Received streams: called with every Opus packet (20 ms) as it is played out.
    public func setOnEncodedAudioCallback(_ callback: (@Sendable ([UInt8]) -> Void)?) { onEncoded.withLock { $0 = callback } }
    func deliverEncoded(_ packet: [UInt8]) { onEncoded.withLock { $0 }?(packet) }

    /// Called with every 20 ms of PCM.
    public func setOnAudioCallback(_ callback: (@Sendable (AudioFrame) -> Void)?) { onAudio.withLock { $0 = callback } }
    /// Called with the levels of every 20 ms of PCM.
    public func setOnStatsCallback(_ callback: (@Sendable (AudioDeviceStats) -> Void)?) { onStats.withLock { $0 = callback } }

    func deliver(_ frame: AudioFrame) {
        onAudio.withLock { $0 }?(frame)
        guard let stats = onStats.withLock({ $0 }) else { return }
        let levels = AudioLevels.measure(frame)
        stats(AudioDeviceStats(peak: levels.peak, rms: levels.rms))
    }
}

func makeDevice(for descriptor: DeviceDescriptor) -> any StageDevice {
    descriptor.kind == .video ? ImageDevice(descriptor: descriptor) : AudioDevice(descriptor: descriptor)
}
