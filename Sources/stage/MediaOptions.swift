import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import StageKit
import StageMedia
import StageDevices

/// The media options of `stage join`: which devices to publish and how to encode them.
struct MediaOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Camera to publish: test (moving pattern with frame stamps), a .y4m file (looped), "
                               + "- for a live YUV4MPEG2 stream on standard input, a FIFO path for one written there "
                               + "(e.g. ffmpeg … -f yuv4mpegpipe -), /dev/videoN for a V4L2 webcam, screen or screen:DISPLAY for an X display "
                               + "(both captured by ffmpeg, fitted into --size), or none. `stage devices` lists them."))
    var camera = "test"
    @Option(help: ArgumentHelp("Microphone to publish: tone (440 Hz), a .wav file (48 kHz, 16 bit), pulse (the "
                               + "PulseAudio default source) or pulse:SOURCE (a name from `pactl list short sources`), alsa or alsa:DEVICE "
                               + "(recorded by ffmpeg, where no sound server runs), - or a FIFO for a live WAV stream, or none."))
    var mic = "tone"
    @Flag(help: "Open a window (SDL2, on $DISPLAY) showing the subscribed videos in a grid, names under them.")
    var view = false
    @Option(help: "Size of the --view window, WIDTHxHEIGHT.")
    var viewSize = "960x540"
    @Flag(help: "Play the mixed sound of everyone subscribed through PulseAudio.")
    var speaker = false
    @Flag(help: ArgumentHelp("With --speaker and a PulseAudio --mic: mute the microphone by 30 dB while the others are heard "
                             + "(half duplex), so they do not hear themselves. Headphones need none of it."))
    var echoSuppression = false
    @Option(help: ArgumentHelp("The PulseAudio sink --speaker plays to (`pactl list short sinks`; default: the server's default).",
                               valueName: "sink"))
    var speakerDevice: String?
    @Option(help: "Simulcast (three layers: full, ½, ¼ size): on or off.")
    var simulcast: Switch = .on
    @Option(help: ArgumentHelp("VP8 temporal layers per simulcast layer, 1–3: 3 (L1T3, as Chrome; the default) lets "
                               + "the server send ½ or ¼ of the frame rate to a link narrower than the lowest layer; 1 "
                               + "turns them off.", valueName: "n"))
    var temporalLayers = 3
    @Option(help: "Video size of the test camera, WIDTHxHEIGHT (160–1920 each side).")
    var size = "1280x720"
    @Option(help: "Target frame rate of the test camera, 10–60.")
    var fps = 30
    @Option(help: "Maximum video bitrate in bits per second (100000–8500000).")
    var maxBitrate = 2_500_000
    @Option(help: "Minimum video bitrate in bits per second (100000–8500000).")
    var minBitrate = 150_000
    @Option(help: "Record every received stream into this folder: VP8 as IVF, Opus as Ogg.")
    var record: String?

    static func device(_ kind: MediaKind) -> DeviceDescriptor {
        DeviceDiscovery().listLocalDevices().first { $0.kind == kind } ?? DeviceDescriptor(deviceId: kind.rawValue, kind: kind)
    }

    enum Switch: String, ExpressibleByArgument { case on, off }

    /// The PulseAudio source `--mic` names (`pulse` → nil, the default), or nothing when the
    /// microphone is not a PulseAudio one.
    var pulseSource: String?? {
        mic == "pulse" ? .some(nil) : mic.hasPrefix("pulse:") ? .some(String(mic.dropFirst("pulse:".count))) : nil
    }

    /// The --view window's size.
    func viewDimensions() throws -> (width: Int, height: Int) {
        let sides = viewSize.split(separator: "x").compactMap { Int($0) }
        guard sides.count == 2, (160...3840).contains(sides[0]), (90...2160).contains(sides[1]) else {
            throw ValidationError("--view-size: expected WIDTHxHEIGHT within 160x90…3840x2160; got '\(viewSize)'")
        }
        return (sides[0] & ~1, sides[1] & ~1)
    }

    static func isFIFO(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO
    }

    /// The screen, its capture started now so that a missing display is reported before joining.
    func screen(_ display: String?) throws -> DeviceDescriptor {
        let video = try configuration().video
        do {
            let camera = try FFmpegCamera.screen(display: display, framerate: video.targetFramerate,
                                                 maxWidth: video.width, maxHeight: video.height)
            FileHandle.standardError.write(Data("camera: screen \(camera.path) \(camera.width)x\(camera.height)\n".utf8))
        } catch {
            throw ValidationError("--camera: \(error)")
        }
        return .screen(display: display)
    }

    /// A V4L2 webcam, its capture started now so that a missing or busy camera is reported before joining.
    func webcam(_ device: String) throws -> DeviceDescriptor {
        let video = try configuration().video
        do {
            let camera = try FFmpegCamera.webcam(device: device, width: video.width, height: video.height, framerate: video.targetFramerate)
            FileHandle.standardError.write(Data("camera: \(device) \(camera.width)x\(camera.height)\n".utf8))
        } catch {
            throw ValidationError("--camera: \(error)")
        }
        return .webcam(device)
    }

    /// A live camera, opened now so that a silent or broken producer is reported before joining.
    static func liveCamera(_ path: String) throws -> DeviceDescriptor {
        do {
            let camera = try Y4MPipeCamera.shared(path: path)
            let name = DeviceDescriptor.camera(pipe: path).friendlyName
            let line = "camera: \(name) \(camera.width)x\(camera.height) at \(camera.framerate) fps\n"
            FileHandle.standardError.write(Data(line.utf8))
        } catch {
            throw ValidationError("--camera: \(error)")
        }
        return .camera(pipe: path)
    }

    func configuration() throws -> LocalStageStreamConfiguration {
        var configuration = LocalStageStreamConfiguration()
        let sides = size.split(separator: "x").compactMap { Int($0) }
        guard sides.count == 2 else { throw ValidationError("--size: expected WIDTHxHEIGHT, like 1280x720; got '\(size)'") }
        do {
            try configuration.video.setSize(width: sides[0], height: sides[1])
            try configuration.video.setTargetFramerate(fps)
            try configuration.video.setMaxBitrate(maxBitrate)
            try configuration.video.setMinBitrate(minBitrate)
            try configuration.video.setTemporalLayers(temporalLayers)
        } catch {
            throw ValidationError("\(error)")
        }
        configuration.video.simulcastEnabled = simulcast == .on
        return configuration
    }

    /// The streams to publish, muted as asked.
    @MainActor
    func streams(muteCamera: Bool, muteMic: Bool) throws -> [LocalStageStream] {
        let configuration = try configuration()
        guard camera != "-" || mic != "-" else { throw ValidationError("--camera - and --mic - cannot both read standard input: use a FIFO for one") }
        var streams: [LocalStageStream] = []
        switch camera {
        case "none": break
        case "test":
            streams.append(LocalStageStream(device: Self.device(.video), configuration: configuration, muted: muteCamera))
        case _ where camera == "screen" || camera.hasPrefix("screen:"):
            let display = camera == "screen" ? nil : String(camera.dropFirst("screen:".count))
            streams.append(LocalStageStream(device: try screen(display), configuration: configuration, muted: muteCamera))
        case _ where camera.hasPrefix("/dev/video"):
            streams.append(LocalStageStream(device: try webcam(camera), configuration: configuration, muted: muteCamera))
        case "-":
            streams.append(LocalStageStream(device: try Self.liveCamera(camera), configuration: configuration, muted: muteCamera))
        case _ where Self.isFIFO(camera):
            streams.append(LocalStageStream(device: try Self.liveCamera(camera), configuration: configuration, muted: muteCamera))
        default:
            guard camera.hasSuffix(".y4m") else {
                throw ValidationError("--camera: test, none, -, a FIFO or a .y4m file; got '\(camera)'")
            }
            streams.append(LocalStageStream(device: .camera(file: camera), configuration: configuration, muted: muteCamera))
        }
        switch mic {
        case "none": break
        case "tone":
            streams.append(LocalStageStream(device: Self.device(.audio), configuration: configuration, muted: muteMic))
        case _ where mic == "alsa" || mic.hasPrefix("alsa:"):
            let device = mic == "alsa" ? "default" : String(mic.dropFirst("alsa:".count))
            do {
                _ = try FFmpegMicrophone.alsa(device: device)   // opened now: a missing device is reported before joining
            } catch {
                throw ValidationError("--mic: \(error)")
            }
            streams.append(LocalStageStream(device: .microphone(alsa: device), configuration: configuration, muted: muteMic))
        case _ where mic == "-" || Self.isFIFO(mic):
            do {
                _ = try WAVPipeMicrophone.shared(path: mic)
            } catch {
                throw ValidationError("--mic: \(error)")
            }
            streams.append(LocalStageStream(device: .microphone(pipe: mic), configuration: configuration, muted: muteMic))
        case _ where pulseSource != nil:
            let source = pulseSource ?? nil
            do {
                // Opened now: a missing source is reported before joining.
                _ = try PulseMicrophone.shared(device: source)
            } catch {
                throw ValidationError("--mic: \(error)")
            }
            streams.append(LocalStageStream(device: .microphone(pulse: source), configuration: configuration, muted: muteMic))
        default:
            guard mic.hasSuffix(".wav") else {
                throw ValidationError("--mic: tone, none, pulse, pulse:SOURCE, alsa, alsa:DEVICE, -, a FIFO or a .wav file; got '\(mic)'")
            }
            streams.append(LocalStageStream(device: .microphone(file: mic), configuration: configuration, muted: muteMic))
        }
        return streams
    }
}
