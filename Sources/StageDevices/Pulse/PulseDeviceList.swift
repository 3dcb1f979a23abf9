import CPulse
import Foundation

/// A PulseAudio source (a microphone, or a sink's monitor) or sink (a speaker).
public struct PulseDeviceInfo: Sendable, Hashable {
    public var name: String
    public var description: String
    public var sampleRate: Int
    public var channels: Int
    /// A source that records what a sink plays (`NAME.monitor`).
    public var isMonitor: Bool
    public var isDefault: Bool
}

extension PulseDeviceInfo {
    /// From the fields a source or sink info record shares (the default flag is set later).
    init(name: UnsafePointer<CChar>, description: UnsafePointer<CChar>?, spec: pa_sample_spec, isMonitor: Bool) {
        self.init(name: String(cString: name), description: description.map { String(cString: $0) } ?? "",
                  sampleRate: Int(spec.rate), channels: Int(spec.channels), isMonitor: isMonitor, isDefault: false)
    }
}

/// Lists the sources and sinks of the PulseAudio server (PipeWire's Pulse server too) through
/// the asynchronous API, driven here until done or `timeout`.
public enum PulseDeviceList {
    public struct Devices: Sendable {
        public var sources: [PulseDeviceInfo] = []
        public var sinks: [PulseDeviceInfo] = []
    }

    /// Collects the answers of the callbacks.
    private final class Answers {
        var devices = Devices()
        var defaultSource = ""
        var defaultSink = ""
    }

    /// - Throws: ``SoundDeviceError`` when no server answers within `timeout`.
    public static func list(timeout: Duration = .seconds(1)) throws(SoundDeviceError) -> Devices {
        guard let loop = pa_mainloop_new() else { throw SoundDeviceError(device: "PulseAudio", reason: "out of memory") }
        defer { pa_mainloop_free(loop) }
        guard let context = pa_context_new(pa_mainloop_get_api(loop), "stage-devices") else {
            throw SoundDeviceError(device: "PulseAudio", reason: "out of memory")
        }
        defer { pa_context_disconnect(context); pa_context_unref(context) }
        let deadline = ContinuousClock.now + timeout
        func iterate() -> Bool {
            guard ContinuousClock.now < deadline else { return false }
            pa_mainloop_iterate(loop, 0, nil)
            usleep(1_000)
            return true
        }
        guard pa_context_connect(context, nil, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0 else {
            throw SoundDeviceError(device: "PulseAudio", reason: String(cString: pa_strerror(pa_context_errno(context))))
        }
        while pa_context_get_state(context) != PA_CONTEXT_READY {
            let state = pa_context_get_state(context)
            guard state != PA_CONTEXT_FAILED, state != PA_CONTEXT_TERMINATED, iterate() else {
                throw SoundDeviceError(device: "PulseAudio", reason: "no sound server answers (\(String(cString: pa_strerror(pa_context_errno(context)))))")
            }
        }
        let answers = Answers()
        let box = Unmanaged.passRetained(answers)
        defer { box.release() }
        let pointer = box.toOpaque()
        var operations: [OpaquePointer?] = [
            pa_context_get_server_info(context, { _, info, data in
                guard let info, let data else { return }
                let answers = Unmanaged<Answers>.fromOpaque(data).takeUnretainedValue()
                answers.defaultSource = info.pointee.default_source_name.map { String(cString: $0) } ?? ""
                answers.defaultSink = info.pointee.default_sink_name.map { String(cString: $0) } ?? ""
            }, pointer),
            pa_context_get_source_info_list(context, { _, info, last, data in
                guard last == 0, let info, let data else { return }
                let answers = Unmanaged<Answers>.fromOpaque(data).takeUnretainedValue()
                answers.devices.sources.append(PulseDeviceInfo(name: info.pointee.name, description: info.pointee.description,
                                                               spec: info.pointee.sample_spec,
                                                               isMonitor: info.pointee.monitor_of_sink != UInt32.max))
            }, pointer),
            pa_context_get_sink_info_list(context, { _, info, last, data in
                guard last == 0, let info, let data else { return }
                let answers = Unmanaged<Answers>.fromOpaque(data).takeUnretainedValue()
                answers.devices.sinks.append(PulseDeviceInfo(name: info.pointee.name, description: info.pointee.description,
                                                             spec: info.pointee.sample_spec, isMonitor: false))
            }, pointer),
        ]
        defer { for operation in operations { if let operation { pa_operation_unref(operation) } } }
        while operations.contains(where: { $0.map { pa_operation_get_state($0) == PA_OPERATION_RUNNING } ?? false }) {
            guard iterate() else { throw SoundDeviceError(device: "PulseAudio", reason: "the sound server did not list its devices in time") }
        }
        var devices = answers.devices
        for index in devices.sources.indices { devices.sources[index].isDefault = devices.sources[index].name == answers.defaultSource }
        for index in devices.sinks.indices { devices.sinks[index].isDefault = devices.sinks[index].name == answers.defaultSink }
        operations = []
        return devices
    }
}
