import Foundation
import Testing
@testable import StageMedia

@Suite("Device discovery")
struct DeviceDiscoveryTests {
    typealias T = FileTestSupport

    @Test("lists a synthetic camera and microphone, each the default")
    func localDevices() {
        let devices = MediaDeviceDiscovery().listLocalDevices()
        #expect(devices.map(\.deviceId) == ["test", "tone"])
        #expect(devices.map(\.type) == [.camera, .microphone])
        #expect(devices.allSatisfy { $0.isDefault && $0.origin == .synthetic && !$0.friendlyName.isEmpty })
    }

    @Test("opens sources on the synthetic devices")
    func syntheticSources() throws {
        let discovery = MediaDeviceDiscovery()
        var camera = try discovery.makeVideoSource(for: .testCamera, width: 320, height: 180, framerate: 15)
        #expect(camera is SyntheticCamera && camera.width == 320 && camera.height == 180 && camera.framerate == 15)
        #expect(try camera.nextFrame(captureTimeMicros: 9)?.captureTimeMicros == 9)
        var microphone = try discovery.makeAudioSource(for: .toneMicrophone, channels: 2)
        #expect(microphone is SyntheticMicrophone && microphone.channels == 2)
        #expect(try microphone.nextFrame(captureTimeMicros: 0)?.samples.count == 1920)
        #expect(throws: MediaDeviceError.wrongDeviceType(deviceId: "tone", expected: .camera)) {
            try discovery.makeVideoSource(for: .toneMicrophone)
        }
        #expect(throws: MediaDeviceError.wrongDeviceType(deviceId: "test", expected: .microphone)) {
            try discovery.makeAudioSource(for: .testCamera)
        }
    }

    @Test("files become devices by their first bytes")
    func fileDevices() throws {
        let video = T.temporaryPath(".y4m")
        let audio = T.temporaryPath(".wav")
        let other = T.temporaryPath(".txt")
        defer { [video, audio, other].forEach(T.remove) }
        let frame = VideoFrame(width: 32, height: 16, luma: 100)
        try T.write(T.y4m(Y4MHeader(width: 32, height: 16, frameRate: .init(10, 1)), [frame]), to: video)
        try T.write(T.riff(T.chunk("fmt ", T.fmtBody(channels: 2)), T.chunk("data", T.pcmBytes([1, 2, 3, 4]))), to: audio)
        try T.write(Array("hello".utf8), to: other)

        let discovery = MediaDeviceDiscovery()
        let camera = try discovery.device(forFile: video)
        #expect(camera.type == .camera && camera.deviceId == "file:" + video && camera.origin == .file(path: video))
        #expect(!camera.isDefault && video.hasSuffix(camera.friendlyName))
        var cameraSource = try discovery.makeVideoSource(for: camera)
        #expect(cameraSource is FileCamera && cameraSource.width == 32 && cameraSource.framerate == 10)
        #expect(try cameraSource.nextFrame(captureTimeMicros: 5) == VideoFrame(width: 32, height: 16, luma: 100, captureTimeMicros: 5))

        let microphone = try discovery.device(forFile: audio)
        #expect(microphone.type == .microphone)
        var microphoneSource = try discovery.makeAudioSource(for: microphone, loop: false)
        #expect(microphoneSource.channels == 2)
        #expect(try microphoneSource.nextFrame(captureTimeMicros: 0)?.samples.prefix(4) == [1, 2, 3, 4])

        #expect(throws: MediaDeviceError.unrecognizedFile(path: other)) { try discovery.device(forFile: other) }
        #expect(throws: MediaDeviceError.io(MediaFileIOError(path: "/nonexistent/a.y4m", operation: "open", errno: ENOENT))) {
            try discovery.device(forFile: "/nonexistent/a.y4m")
        }
    }
}
