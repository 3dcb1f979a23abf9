import ArgumentParser
import Foundation
import StageDevices

/// `stage devices`: the cameras, microphones, speakers and screens `stage join` can use, with
/// the formats each offers and the `--camera`/`--mic`/`--speaker-device` value that picks it.
struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the cameras, microphones, speakers and screens this machine offers.")

    @Flag(help: "One JSON object, for scripts.") var json = false

    func run() throws {
        let webcams = WebcamList.list()
        let screens = ScreenList.list()
        let sound: Result<PulseDeviceList.Devices, SoundDeviceError> = Result { () throws(SoundDeviceError) in
            try PulseDeviceList.list()
        }
        if json {
            print(jsonText(webcams: webcams, screens: screens, sound: sound))
            return
        }
        print("cameras:")
        print("  test: moving test pattern with frame stamps  (--camera test)")
        for webcam in webcams {
            print("  \(webcam.device)  (--camera \(webcam.device))")
            for format in webcam.formats {
                print("    \(format.compressed ? "compressed" : "raw") \(format.pixelFormat): \(format.sizes.joined(separator: " "))")
            }
            if webcam.formats.isEmpty { print("    (no formats: the device could not be opened)") }
        }
        print("screens:")
        for screen in screens { print("  \(screen.display): \(screen.width)x\(screen.height)  (--camera screen:\(screen.display))") }
        if screens.isEmpty { print("  (no X display)") }
        switch sound {
        case .success(let devices):
            print("microphones:")
            print("  tone: 440 Hz  (--mic tone)")
            for source in devices.sources {
                let notes = (source.isDefault ? ", default" : "") + (source.isMonitor ? ", monitor of a sink" : "")
                print("  \(source.name): \(source.sampleRate) Hz, \(source.channels) ch\(notes)  (--mic pulse:\(source.name))")
            }
            print("speakers:")
            for sink in devices.sinks {
                let notes = sink.isDefault ? ", default" : ""
                print("  \(sink.name): \(sink.sampleRate) Hz, \(sink.channels) ch\(notes)  (--speaker --speaker-device \(sink.name))")
            }
        case .failure(let error):
            print("microphones and speakers: \(error)")
        }
    }

    private func jsonText(webcams: [WebcamInfo], screens: [ScreenInfo], sound: Result<PulseDeviceList.Devices, SoundDeviceError>) -> String {
        func pulse(_ info: PulseDeviceInfo) -> [String: Any] {
            ["name": info.name, "description": info.description, "sampleRate": info.sampleRate, "channels": info.channels,
             "monitor": info.isMonitor, "default": info.isDefault]
        }
        var object: [String: Any] = [
            "cameras": webcams.map { ["device": $0.device, "formats": $0.formats.map { ["pixelFormat": $0.pixelFormat, "compressed": $0.compressed, "sizes": $0.sizes] }] },
            "screens": screens.map { ["display": $0.display, "width": $0.width, "height": $0.height] },
        ]
        switch sound {
        case .success(let devices):
            object["microphones"] = devices.sources.map(pulse)
            object["speakers"] = devices.sinks.map(pulse)
        case .failure(let error):
            object["soundError"] = error.description
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
