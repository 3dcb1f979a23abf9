/// Lists the capture devices and opens sources on them, as the IVS SDK's
/// `DeviceDiscovery().listLocalDevices()` does. There is no hardware capture on a server: the
/// local devices are a synthetic camera ("test") and microphone ("tone"); files become devices
/// through ``device(forFile:)``.
public struct MediaDeviceDiscovery: Sendable {
    public init() {}

    /// The synthetic camera and microphone, each the default of its type.
    public func listLocalDevices() -> [MediaDeviceDescriptor] {
        [.testCamera, .toneMicrophone]
    }

    /// A device for a `.y4m` (camera) or `.wav` (microphone) file, recognized by its first bytes.
    public func device(forFile path: String) throws(MediaDeviceError) -> MediaDeviceDescriptor {
        let head: [UInt8]
        do { head = try MediaFileBytes.file(MediaFileInput(path: path)).read(at: 0, count: 12) } catch { throw .io(error) }
        let type: MediaDeviceType
        if head.starts(with: Y4MHeader.magic) {
            type = .camera
        } else if head.count == 12, head[0..<4].elementsEqual("RIFF".utf8), head[8..<12].elementsEqual("WAVE".utf8) {
            type = .microphone
        } else {
            throw .unrecognizedFile(path: path)
        }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return MediaDeviceDescriptor(deviceId: "file:" + path, friendlyName: name, type: type, origin: .file(path: path))
    }

    /// A video source on a camera device.
    ///
    /// - Parameters:
    ///   - width, height, framerate: for the synthetic camera; a file has its own.
    ///   - loop: for a file, start again at its end instead of ending the track.
    public func makeVideoSource(
        for device: MediaDeviceDescriptor, width: Int = 1280, height: Int = 720, framerate: Double = 30, loop: Bool = true
    ) throws -> any VideoSource {
        guard device.type == .camera else { throw MediaDeviceError.wrongDeviceType(deviceId: device.deviceId, expected: .camera) }
        switch device.origin {
        case .synthetic: return try SyntheticCamera(width: width, height: height, framerate: framerate)
        case .file(let path): return try FileCamera(path: path, loop: loop)
        }
    }

    /// An audio source on a microphone device.
    ///
    /// - Parameters:
    ///   - channels: for the synthetic microphone; a file has its own.
    ///   - loop: for a file, start again at its end instead of ending the track.
    public func makeAudioSource(for device: MediaDeviceDescriptor, channels: Int = 1, loop: Bool = true) throws -> any AudioSource {
        guard device.type == .microphone else {
            throw MediaDeviceError.wrongDeviceType(deviceId: device.deviceId, expected: .microphone)
        }
        switch device.origin {
        case .synthetic: return try SyntheticMicrophone(channels: channels)
        case .file(let path): return try FileMicrophone(path: path, loop: loop)
        }
    }
}
