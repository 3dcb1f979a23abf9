/// Writes 16-bit PCM, 48 kHz, mono or stereo as a RIFF WAVE file (the 44-byte canonical layout:
/// `RIFF` size `WAVE`, a 16-byte `fmt ` chunk, then `data`). The RIFF and `data` sizes are
/// patched by ``close()``, which `deinit` calls if it was not called.
///
/// One task or actor uses a writer at a time.
public final class WAVWriter {
    /// The `data` chunk size field is 32 bits; samples beyond it are refused.
    public static let maximumDataBytes = Int64(UInt32.max - 36) & ~3

    public let format: WAVFormat
    /// Sample frames written so far.
    public private(set) var sampleFrameCount = 0

    private let file: MediaFileOutput

    /// Creates (or truncates) the file at `path` and writes the header.
    public init(path: String, channels: Int) throws(MediaWriterError) {
        guard channels == 1 || channels == 2 else {
            throw .invalidArgument(name: "channels", value: "\(channels)", rule: "WAV files here are mono or stereo")
        }
        format = WAVFormat(channels: channels)
        do { file = try MediaFileOutput(path: path) } catch { throw .io(error) }
        var header: [UInt8] = Array("RIFF".utf8)
        MediaFileLE.append(UInt32(36), to: &header)
        header += Array("WAVEfmt ".utf8)
        let body = format.serialized()
        MediaFileLE.append(UInt32(body.count), to: &header)
        header += body
        header += Array("data".utf8)
        MediaFileLE.append(UInt32(0), to: &header)
        do { try file.append(header) } catch { throw .io(error) }
    }

    deinit { try? close() }

    /// Appends interleaved samples (a whole number of sample frames).
    public func write(samples: [Int16]) throws(MediaWriterError) {
        guard file.isOpen else { throw .closed(path: file.path) }
        guard samples.count % format.channels == 0 else {
            throw .invalidArgument(name: "samples", value: "\(samples.count)", rule: "a multiple of \(format.channels) channels")
        }
        guard file.size + Int64(samples.count * 2) <= 44 + Self.maximumDataBytes else {
            throw .invalidArgument(name: "samples", value: "\(samples.count)", rule: "the data chunk is limited to 4 GiB")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(samples.count * 2)
        for sample in samples { MediaFileLE.append(sample, to: &bytes) }
        do { try file.append(bytes) } catch { throw .io(error) }
        sampleFrameCount += samples.count / format.channels
    }

    /// Appends a frame; its channel count must match the writer's.
    public func write(_ frame: AudioFrame) throws(MediaWriterError) {
        guard frame.channels == format.channels else {
            throw .invalidArgument(name: "frame channels", value: "\(frame.channels)", rule: "the file has \(format.channels)")
        }
        try write(samples: frame.samples)
    }

    /// Patches the RIFF and `data` sizes and closes the file. Calling it again does nothing.
    public func close() throws(MediaWriterError) {
        guard file.isOpen else { return }
        let dataBytes = UInt32(sampleFrameCount * format.blockAlign)
        do {
            try file.overwrite(MediaFileLE.bytes(UInt32(36) + dataBytes), at: 4)
            try file.overwrite(MediaFileLE.bytes(dataBytes), at: 40)
            try file.close()
        } catch {
            try? file.close()
            throw .io(error)
        }
    }
}
