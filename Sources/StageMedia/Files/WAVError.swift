/// Why a RIFF WAVE file was rejected; each case names the chunk or `fmt ` field at fault.
public enum WAVError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Fewer than the 12 bytes of the RIFF header (`RIFF`, size, `WAVE`).
    case truncatedHeader(available: Int)
    /// The file does not start with `RIFF` (big-endian `RIFX` and 64-bit `RF64` are not read).
    case notRIFF(found: [UInt8])
    /// The RIFF form type is not `WAVE`.
    case notWAVE(found: [UInt8])
    /// A chunk whose declared size runs past the end of the file.
    case chunkBeyondEnd(id: String, offset: Int64, size: UInt32, available: Int64)
    /// More than ``WAVReader/maximumChunks`` chunks before `fmt ` and `data` were both found.
    case tooManyChunks(limit: Int)
    /// No `fmt ` or no `data` chunk.
    case missingChunk(String)
    /// The `fmt ` chunk is shorter than its format needs (16 bytes, 40 for WAVE_FORMAT_EXTENSIBLE).
    case formatChunkTooShort(size: Int, minimum: Int)
    /// `wFormatTag` is neither PCM (1) nor WAVE_FORMAT_EXTENSIBLE (0xFFFE).
    case unsupportedFormatTag(UInt16)
    /// WAVE_FORMAT_EXTENSIBLE whose SubFormat GUID is not KSDATAFORMAT_SUBTYPE_PCM.
    case unsupportedSubFormat(String)
    /// `wBitsPerSample` other than 16.
    case unsupportedBitsPerSample(Int)
    /// `nSamplesPerSec` other than 48000.
    case unsupportedSampleRate(Int)
    /// `nChannels` other than 1 or 2.
    case unsupportedChannelCount(Int)
    /// `nBlockAlign` is not channels × 2.
    case inconsistentBlockAlign(blockAlign: Int, expected: Int)
    /// Reading the file failed.
    case io(MediaFileIOError)

    public var description: String {
        switch self {
        case .truncatedHeader(let available):
            "WAV: RIFF header needs 12 bytes, have \(available)"
        case .notRIFF(let found):
            "WAV: file starts with \(String(decoding: found, as: UTF8.self).debugDescription), not \"RIFF\" (RIFX and RF64 are not supported)"
        case .notWAVE(let found):
            "WAV: RIFF form type \(String(decoding: found, as: UTF8.self).debugDescription) is not \"WAVE\""
        case .chunkBeyondEnd(let id, let offset, let size, let available):
            "WAV: chunk \(id.debugDescription) at byte \(offset) declares \(size) bytes, only \(available) remain"
        case .tooManyChunks(let limit):
            "WAV: more than \(limit) chunks before fmt and data"
        case .missingChunk(let id):
            "WAV: no \(id.debugDescription) chunk"
        case .formatChunkTooShort(let size, let minimum):
            "WAV: fmt chunk of \(size) bytes is shorter than the \(minimum) its format needs"
        case .unsupportedFormatTag(let tag):
            "WAV: format tag \(WAVFormat.formatTagName(tag)): only PCM (1) or WAVE_FORMAT_EXTENSIBLE with PCM subformat is supported"
        case .unsupportedSubFormat(let guid):
            "WAV: WAVE_FORMAT_EXTENSIBLE subformat \(guid) is not PCM"
        case .unsupportedBitsPerSample(let bits):
            "WAV: \(bits) bits per sample: only 16-bit is supported"
        case .unsupportedSampleRate(let rate):
            "WAV: sample rate \(rate) Hz: only 48000 Hz is supported"
        case .unsupportedChannelCount(let channels):
            "WAV: \(channels) channels: only 1 or 2 are supported"
        case .inconsistentBlockAlign(let blockAlign, let expected):
            "WAV: block align \(blockAlign) does not match channels × 2 = \(expected)"
        case .io(let error):
            "WAV: \(error)"
        }
    }
}
