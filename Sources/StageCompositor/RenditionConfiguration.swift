/// One HLS rendition's encoding: picture size and rate, H.264 and AAC bitrates, and the part and
/// segment lengths the fragments are cut to.
///
/// A part is `framesPerPart` video frames (RFC 8216bis §4.4.4.9 `EXT-X-PART`; 10 at 30 fps is
/// 0.333 s, under the 1 s the spec recommends for `PART-TARGET`); a segment is
/// `partsPerSegment` parts and always begins with an IDR picture (closed GOP, RFC 8216bis
/// §6.2.4: every segment and every `INDEPENDENT=YES` part must be decodable on its own).
public struct RenditionConfiguration: Sendable, Equatable {
    /// H.264 profile (ITU-T H.264 Annex A) for the SPS; both are 8-bit 4:2:0.
    public enum Profile: String, Sendable, Equatable {
        case main
        case high
    }

    public var width: Int
    public var height: Int
    /// Frames per second, an integer (the canvas ticks at a fixed rate).
    public var framerate: Int
    /// H.264 target and maximum bitrate, bits per second.
    public var videoBitrate: Int
    /// AAC-LC bitrate, bits per second (stereo, 48 kHz).
    public var audioBitrate: Int
    public var framesPerPart: Int
    public var partsPerSegment: Int
    /// libx264 preset: `ultrafast`…`placebo`; `veryfast` by default.
    public var preset: String
    public var profile: Profile
    /// Encoder threads for libx264; 0 lets x264 choose (sliced threads under `zerolatency`).
    public var threads: Int
    /// Where this rendition's timeline starts, in seconds: every timestamp (`tfdt`, ISO/IEC
    /// 14496-12 §8.8.12) is offset by it, so a restarted compositor continues after the last
    /// part it published instead of going back to 0.
    public var baseTimeSeconds: Double

    public static let audioSampleRate = 48_000
    public static let audioChannels = 2

    public init(width: Int, height: Int, framerate: Int = 30,
                videoBitrate: Int, audioBitrate: Int = 128_000,
                framesPerPart: Int = 10, partsPerSegment: Int = 6,
                preset: String = "veryfast", profile: Profile = .high, threads: Int = 0,
                baseTimeSeconds: Double = 0) {
        self.width = width
        self.height = height
        self.framerate = framerate
        self.videoBitrate = videoBitrate
        self.audioBitrate = audioBitrate
        self.framesPerPart = framesPerPart
        self.partsPerSegment = partsPerSegment
        self.preset = preset
        self.profile = profile
        self.threads = threads
        self.baseTimeSeconds = baseTimeSeconds
    }

    /// Frames in a segment: the GOP length (`-g`).
    public var framesPerSegment: Int { framesPerPart * partsPerSegment }
    public var partDuration: Double { Double(framesPerPart) / Double(framerate) }
    public var segmentDuration: Double { Double(framesPerSegment) / Double(framerate) }

    static let presets: Set<String> = [
        "ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo",
    ]

    func validate() throws(AVError) {
        guard width >= 16, height >= 16, width <= 4096, height <= 4096, width % 2 == 0, height % 2 == 0 else {
            throw .invalidConfiguration("size \(width)×\(height): even, 16…4096 each")
        }
        guard (1...120).contains(framerate) else { throw .invalidConfiguration("framerate \(framerate): 1…120") }
        guard (50_000...50_000_000).contains(videoBitrate) else {
            throw .invalidConfiguration("video bitrate \(videoBitrate): 50 kb/s…50 Mb/s")
        }
        guard (32_000...512_000).contains(audioBitrate) else {
            throw .invalidConfiguration("audio bitrate \(audioBitrate): 32…512 kb/s")
        }
        guard framesPerPart >= 1, partsPerSegment >= 1, framesPerSegment <= 10 * framerate else {
            throw .invalidConfiguration("\(framesPerPart) frames per part × \(partsPerSegment) parts: at least 1 each, segments at most 10 s")
        }
        guard Self.presets.contains(preset) else { throw .invalidConfiguration("x264 preset \(preset)") }
        guard (0...16).contains(threads) else { throw .invalidConfiguration("threads \(threads): 0…16") }
        guard baseTimeSeconds.isFinite, baseTimeSeconds >= 0, baseTimeSeconds < 1e9 else {
            throw .invalidConfiguration("base time \(baseTimeSeconds) s")
        }
    }
}
