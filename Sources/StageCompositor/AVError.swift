internal import CAV
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Everything the FFmpeg-based encoders and the CMAF muxer can fail with.
///
/// FFmpeg failures carry the call that failed, its negative `AVERROR` code and the text
/// `av_strerror` gives for it, so a log line says what libavcodec/libavformat said.
public enum AVError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An FFmpeg call returned a negative error code.
    case ffmpeg(operation: String, code: Int32, message: String)
    /// The linked libavcodec has no encoder of that name (e.g. a build without `--enable-libx264`).
    case encoderNotFound(name: String)
    /// An FFmpeg allocator returned `NULL`.
    case allocationFailed(String)
    /// A configuration value is out of range.
    case invalidConfiguration(String)
    /// A picture's size differs from the size the encoder was opened for.
    case frameSizeMismatch(expectedWidth: Int, expectedHeight: Int, width: Int, height: Int)
    /// The muxer wrote something other than the boxes expected at that point
    /// (ISO/IEC 14496-12 top-level boxes: `ftyp`+`moov` for the header, `moof`+`mdat` per fragment).
    case unexpectedMuxerOutput(String)
    /// An encoder gave `packets` packets for frame `frame` where one was due (libx264 under
    /// `zerolatency` with no B-frames gives exactly one per picture; parts depend on it).
    case encoderDelayedOutput(frame: Int, packets: Int)
    /// `encode` or `finish` was called after `finish`.
    case finished

    public var description: String {
        switch self {
        case let .ffmpeg(operation, code, message):
            return "FFmpeg \(operation) failed: \(message) [AVERROR \(code)]"
        case let .encoderNotFound(name):
            let hint = name == "libx264"
                ? " (H.264 needs an FFmpeg built with --enable-gpl --enable-libx264, e.g. Debian's libavcodec59)" : ""
            return "FFmpeg has no encoder named \(name)\(hint)"
        case let .allocationFailed(what):
            return "FFmpeg could not allocate \(what)"
        case let .invalidConfiguration(reason):
            return "invalid encoder configuration: \(reason)"
        case let .frameSizeMismatch(ew, eh, w, h):
            return "picture is \(w)×\(h) but the encoder is configured for \(ew)×\(eh)"
        case let .unexpectedMuxerOutput(what):
            return "unexpected fMP4 muxer output: \(what)"
        case let .encoderDelayedOutput(frame, packets):
            return "the video encoder gave \(packets) packet(s) for frame \(frame), expected exactly one"
        case .finished:
            return "the encoder was already finished"
        }
    }

    /// Builds an `.ffmpeg` error from a negative return code, with `av_strerror`'s text.
    static func ffmpeg(_ operation: String, _ code: Int32) -> AVError {
        var buffer = [CChar](repeating: 0, count: Int(AV_ERROR_MAX_STRING_SIZE))
        let known = av_strerror(code, &buffer, buffer.count) == 0
        let message = known ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                            : "unknown error"
        return .ffmpeg(operation: operation, code: code, message: message)
    }

    /// Returns `code` when it is not negative, else throws `.ffmpeg(operation, code)`.
    @discardableResult
    static func check(_ code: Int32, _ operation: String) throws(AVError) -> Int32 {
        guard code >= 0 else { throw ffmpeg(operation, code) }
        return code
    }
}

/// FFmpeg's function-like error macros, which Swift does not import.
enum AVErrorCode {
    /// `AVERROR(EAGAIN)`: the codec wants input before it can give output (or the reverse).
    static let again: Int32 = -EAGAIN
    /// `AVERROR_EOF`: `FFERRTAG('E','O','F',' ')` negated; the codec is fully drained.
    static let endOfFile: Int32 = -Int32(bitPattern: 0x2046_4F45)
}
