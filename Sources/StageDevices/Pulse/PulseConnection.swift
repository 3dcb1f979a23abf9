import CPulse

/// Why a sound device could not be opened or stopped working; names the device.
public struct SoundDeviceError: Error, CustomStringConvertible, Sendable {
    public var device: String
    public var reason: String
    public var description: String { "\(device): \(reason)" }
}

/// One PulseAudio (or PipeWire's Pulse server) stream through the simple API: 48 kHz signed
/// 16-bit little-endian, mono or stereo, with buffers sized for 20 ms blocks.
final class PulseConnection: @unchecked Sendable {
    let handle: OpaquePointer
    let name: String
    let channels: Int

    /// - Parameters:
    ///   - device: a source (recording) or sink (playback) name; nil for the server's default.
    ///   - latencyMillis: playback: the buffer the server keeps; recording: the block it hands over.
    init(recording: Bool, device: String?, channels: Int, latencyMillis: Int, streamName: String) throws(SoundDeviceError) {
        let label = (recording ? "microphone " : "speaker ") + (device ?? "(the default)")
        name = label
        self.channels = channels
        var spec = pa_sample_spec(format: PA_SAMPLE_S16LE, rate: 48_000, channels: UInt8(channels))
        let blockBytes = UInt32(48 * latencyMillis * channels * 2)
        var attributes = recording
            ? pa_buffer_attr(maxlength: UInt32.max, tlength: UInt32.max, prebuf: UInt32.max, minreq: UInt32.max, fragsize: blockBytes)
            : pa_buffer_attr(maxlength: UInt32.max, tlength: blockBytes, prebuf: blockBytes / 2, minreq: UInt32(48 * 10 * channels * 2),
                             fragsize: UInt32.max)
        var error: Int32 = 0
        let opened = pa_simple_new(nil, "stage", recording ? PA_STREAM_RECORD : PA_STREAM_PLAYBACK, device, streamName,
                                   &spec, nil, &attributes, &error)
        guard let opened else { throw SoundDeviceError(device: label, reason: String(cString: pa_strerror(error))) }
        handle = opened
    }

    deinit { pa_simple_free(handle) }

    /// Blocks until `samples.count` samples were recorded.
    func read(into samples: inout [Int16]) throws(SoundDeviceError) {
        var error: Int32 = 0
        let status = samples.withUnsafeMutableBytes { pa_simple_read(handle, $0.baseAddress, $0.count, &error) }
        guard status >= 0 else { throw SoundDeviceError(device: name, reason: String(cString: pa_strerror(error))) }
    }

    /// Blocks while the server's buffer is full.
    func write(_ samples: [Int16]) throws(SoundDeviceError) {
        var error: Int32 = 0
        let status = samples.withUnsafeBytes { pa_simple_write(handle, $0.baseAddress, $0.count, &error) }
        guard status >= 0 else { throw SoundDeviceError(device: name, reason: String(cString: pa_strerror(error))) }
    }

    /// The playback latency now (what is buffered and not yet heard), in microseconds.
    var latencyMicros: UInt64 {
        var error: Int32 = 0
        return pa_simple_get_latency(handle, &error)
    }
}
