import StageMedia
import Synchronization

/// Microphones that ffmpeg records and writes as WAV into a pipe a ``WAVPipeMicrophone``
/// reads: ALSA devices, the fallback where no PulseAudio or PipeWire server runs.
public enum FFmpegMicrophone {
    private static let running = Mutex<[String: WAVPipeMicrophone]>([:])

    /// The ALSA capture device `device` (`default`, `hw:0`, `plughw:1,0`) as 48 kHz mono.
    public static func alsa(device: String, headerTimeout: Duration = .seconds(10)) throws(MediaDeviceError) -> WAVPipeMicrophone {
        let key = "alsa:\(device)"
        if let microphone = running.withLock({ $0[key] }), !microphone.ended, microphone.failure == nil { return microphone }
        let name = "microphone alsa:\(device)"
        let capture = try FFmpegCapture(name: name, arguments: ["-f", "alsa", "-i", device, "-ac", "1", "-ar", "48000",
                                                                 "-c:a", "pcm_s16le", "-f", "wav", "-"])
        let microphone = try capture.reading { descriptor throws(MediaDeviceError) in
            try WAVPipeMicrophone(descriptor: descriptor, path: key, name: name, waitsForWriter: false, headerTimeout: headerTimeout)
        }
        running.withLock { $0[key] = microphone }
        return microphone
    }
}
