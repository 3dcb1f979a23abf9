internal import COpus
internal import CVPX

/// Everything the VP8 and Opus wrappers can fail with.
///
/// Library failures carry the library's own error string (`vpx_codec_err_to_string` plus
/// `vpx_codec_error_detail`, or `opus_strerror`) so a log line says what libvpx/libopus said.
public enum MediaCodecError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A libvpx call returned an error. `code` is the `vpx_codec_err_t` value.
    case vpx(operation: String, code: Int, message: String, detail: String?)
    /// A libopus call returned a negative error code (`OPUS_BAD_ARG`, `OPUS_INVALID_PACKET`…).
    case opus(operation: String, code: Int, message: String)
    /// A frame's size differs from the size the encoder was configured for.
    case frameSizeMismatch(expectedWidth: Int, expectedHeight: Int, width: Int, height: Int)
    /// An audio frame does not hold exactly one Opus frame's worth of samples per channel.
    case wrongSampleCount(expected: Int, got: Int)
    /// An audio frame's channel count differs from the codec's.
    case channelMismatch(expected: Int, got: Int)
    /// An empty payload was given to a decoder.
    case emptyPacket
    /// libvpx decoded the frame but flagged the picture corrupt (`VP8D_GET_FRAME_CORRUPTED`): its
    /// data ran short, or it predicts from a reference damaged since the last keyframe. The
    /// picture is withheld; the stream needs a keyframe (send a PLI/FIR).
    case corruptFrame
    /// A keyframe announces a picture larger than the decoder accepts (a guard against a peer
    /// making libvpx allocate gigabytes of frame buffers).
    case frameTooLarge(width: Int, height: Int, maxPixels: Int)
    /// A configuration value is out of range.
    case invalidConfiguration(String)

    public var description: String {
        switch self {
        case let .vpx(operation, code, message, detail):
            let extra = detail.map { " (\($0))" } ?? ""
            return "libvpx \(operation) failed: \(message)\(extra) [vpx_codec_err_t \(code)]"
        case let .opus(operation, code, message):
            return "libopus \(operation) failed: \(message) [\(code)]"
        case let .frameSizeMismatch(ew, eh, w, h):
            return "frame is \(w)×\(h) but the encoder is configured for \(ew)×\(eh)"
        case let .wrongSampleCount(expected, got):
            return "audio frame has \(got) samples per channel; Opus frames here are exactly \(expected) (20 ms at 48 kHz)"
        case let .channelMismatch(expected, got):
            return "audio frame has \(got) channel(s); the codec was created for \(expected)"
        case .emptyPacket:
            return "empty packet given to a decoder"
        case .corruptFrame:
            return "libvpx flagged the decoded picture corrupt (damaged data or reference); a keyframe is needed"
        case let .frameTooLarge(width, height, maxPixels):
            return "keyframe announces \(width)×\(height), more than the \(maxPixels) pixels this decoder accepts"
        case let .invalidConfiguration(reason):
            return "invalid codec configuration: \(reason)"
        }
    }

    /// Builds a `.vpx` error from a `vpx_codec_err_t` and, when given, the context's detail string.
    static func vpx(_ operation: String, _ err: vpx_codec_err_t,
                    _ ctx: UnsafeMutablePointer<vpx_codec_ctx_t>? = nil) -> MediaCodecError {
        let message = vpx_codec_err_to_string(err).map { String(cString: $0) } ?? "unknown error"
        let detail = ctx.flatMap { vpx_codec_error_detail($0) }.map { String(cString: $0) }
        return .vpx(operation: operation, code: Int(err.rawValue), message: message, detail: detail)
    }

    /// Builds an `.opus` error from a negative libopus return code.
    static func opus(_ operation: String, _ code: Int32) -> MediaCodecError {
        let message = opus_strerror(code).map { String(cString: $0) } ?? "unknown error"
        return .opus(operation: operation, code: Int(code), message: message)
    }
}
