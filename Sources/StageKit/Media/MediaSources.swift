import StageMedia
import StageDevices

/// Opens the capture source a device descriptor names.
enum MediaSources {
    static func video(_ source: DeviceSource, configuration: LocalStageStreamVideoConfiguration) throws -> any VideoSource {
        switch source {
        case .y4mFile(let path, let loop):
            return try FileCamera(path: path, loop: loop)
        case .y4mPipe(let path):
            return try Y4MPipeCamera.shared(path: path)
        case .screen(let display):
            return try FFmpegCamera.screen(display: display, framerate: configuration.targetFramerate,
                                           maxWidth: configuration.width, maxHeight: configuration.height)
        case .webcam(let device):
            return try FFmpegCamera.webcam(device: device, width: configuration.width, height: configuration.height,
                                           framerate: configuration.targetFramerate)
        case .testPattern, .tone, .wavFile, .pulseMicrophone, .wavPipe, .alsaMicrophone:
            return try SyntheticCamera(width: configuration.width, height: configuration.height,
                                   framerate: Double(configuration.targetFramerate))
        }
    }

    static func audio(_ source: DeviceSource) throws -> any AudioSource {
        switch source {
        case .wavFile(let path, let loop):
            return try FileMicrophone(path: path, loop: loop)
        case .tone(let frequency):
            return try SyntheticMicrophone(frequency: frequency)
        case .pulseMicrophone(let device):
            return try PulseMicrophone.shared(device: device)
        case .wavPipe(let path):
            return try WAVPipeMicrophone.shared(path: path)
        case .alsaMicrophone(let device):
            return try FFmpegMicrophone.alsa(device: device)
        case .testPattern, .y4mFile, .y4mPipe, .screen, .webcam:
            return try SyntheticMicrophone(frequency: 440)
        }
    }
}
