public import StageMedia
/// Why a device or source could not be created.
public enum MediaDeviceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A picture size outside 16…4096 a side (and 4096 × 2304 in all).
    case invalidVideoSize(width: Int, height: Int)
    /// A frame rate outside (0, 240].
    case invalidFramerate(Double)
    /// A tone frequency outside (0, 24000) Hz, or a level above 0 dBFS.
    case invalidTone(frequency: Double, levelDBFS: Double)
    /// A channel count other than 1 or 2.
    case invalidChannelCount(Int)
    /// The file could not be read.
    case io(MediaFileIOError)
    /// A live device (a pipe, a FIFO) could not be opened or sent nothing usable; `device`
    /// names it.
    case unavailable(device: String, reason: String)

    public var description: String {
        switch self {
        case .invalidVideoSize(let width, let height):
            "video size \(width)×\(height) is invalid: each side 16…4096, at most 4096×2304 pixels"
        case .invalidFramerate(let rate):
            "frame rate \(rate) is invalid: above 0 and at most 240"
        case .invalidTone(let frequency, let level):
            "tone \(frequency) Hz at \(level) dBFS is invalid: frequency in (0, 24000) Hz, level at most 0 dBFS"
        case .invalidChannelCount(let channels):
            "\(channels) channels: only 1 or 2 are supported"
        case .io(let error):
            "\(error)"
        case .unavailable(let device, let reason):
            "\(device): \(reason)"
        }
    }
}
