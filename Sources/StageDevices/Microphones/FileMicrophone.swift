public import StageMedia
/// A microphone that plays a WAV file (``WAVReader``) in 20 ms frames.
///
/// At the end of the file the last frame is completed with silence, then `nil` follows; when
/// looping, it is completed from the start of the file instead, so the loop has no gap.
public struct FileMicrophone: AudioSource {
    public private(set) var reader: WAVReader
    public var loop: Bool

    public init(path: String, loop: Bool = false) throws(WAVError) {
        self.init(reader: try WAVReader(path: path), loop: loop)
    }

    public init(reader: WAVReader, loop: Bool = false) {
        self.reader = reader
        self.loop = loop
    }

    public var channels: Int { reader.format.channels }

    public mutating func nextFrame(captureTimeMicros: UInt64) throws(WAVError) -> AudioFrame? {
        let wanted = AudioCapture.samplesPerChannel
        var samples = try reader.read(sampleFrames: wanted)
        if samples.isEmpty, !loop || reader.sampleFrameCount == 0 { return nil }
        while loop, samples.count < wanted * channels, reader.sampleFrameCount > 0 {
            reader.rewind()
            samples += try reader.read(sampleFrames: wanted - samples.count / channels)
        }
        if samples.count < wanted * channels {
            samples += [Int16](repeating: 0, count: wanted * channels - samples.count)
        }
        return AudioFrame(channels: channels, samples: samples, captureTimeMicros: captureTimeMicros)
    }
}
