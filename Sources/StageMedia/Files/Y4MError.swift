/// Why a YUV4MPEG2 stream was rejected; each case names the parameter or the frame at fault.
public enum Y4MError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No bytes at all.
    case empty
    /// The stream does not start with `YUV4MPEG2` and a space or line feed.
    case notYUV4MPEG2(prefix: [UInt8])
    /// The data ends before the header's line feed.
    case truncatedHeader(bytes: Int)
    /// No line feed within ``Y4MHeader/maximumHeaderBytes``.
    case headerTooLong(limit: Int)
    /// `W` or `H` is absent.
    case missingParameter(Character)
    /// A parameter whose value does not follow its grammar; `rule` says what was expected.
    case invalidParameter(tag: Character, value: String, rule: String)
    /// A `C` value that is not 4:2:0 (`444`, `422`, `mono`, …).
    case unsupportedColourspace(String)
    /// A `C` value with more than 8 bits per sample (`420p10`, …).
    case unsupportedBitDepth(colourspace: String, bits: Int)
    /// Larger than ``Y4MHeader/maximumDimension`` a side or ``Y4MHeader/maximumPixels`` in all.
    case frameTooLarge(width: Int, height: Int)
    /// Frame `frame` (0-based) does not start with `FRAME` and a space or line feed.
    case missingFrameMarker(frame: Int, offset: Int64)
    /// The data ends inside frame `frame`'s `FRAME…` line.
    case truncatedFrameHeader(frame: Int)
    /// No line feed within the frame header limit.
    case frameHeaderTooLong(frame: Int, limit: Int)
    /// The data ends inside frame `frame`'s planes.
    case truncatedFrame(frame: Int, expected: Int, available: Int)
    /// Reading the file failed.
    case io(MediaFileIOError)

    public var description: String {
        switch self {
        case .empty:
            "Y4M: no data"
        case .notYUV4MPEG2(let prefix):
            "Y4M: stream starts with \(String(decoding: prefix, as: UTF8.self).debugDescription), not \"YUV4MPEG2 \""
        case .truncatedHeader(let bytes):
            "Y4M: stream header not terminated by a line feed (\(bytes) bytes)"
        case .headerTooLong(let limit):
            "Y4M: stream header longer than \(limit) bytes"
        case .missingParameter(let tag):
            "Y4M: stream header lacks the required \(tag) parameter"
        case .invalidParameter(let tag, let value, let rule):
            "Y4M: parameter \(tag)\(value) is invalid: expected \(rule)"
        case .unsupportedColourspace(let value):
            "Y4M: colourspace C\(value) is not supported: only 8-bit 4:2:0 (C420jpeg, C420paldv, C420mpeg2, C420)"
        case .unsupportedBitDepth(let value, let bits):
            "Y4M: colourspace C\(value) has \(bits)-bit samples: only 8-bit 4:2:0 is supported"
        case .frameTooLarge(let width, let height):
            "Y4M: frame size \(width)×\(height) exceeds the \(Y4MHeader.maximumDimension)-pixel side or 4096×2304 area limit"
        case .missingFrameMarker(let frame, let offset):
            "Y4M: frame \(frame) at byte \(offset) does not start with \"FRAME\""
        case .truncatedFrameHeader(let frame):
            "Y4M: data ends inside the FRAME line of frame \(frame)"
        case .frameHeaderTooLong(let frame, let limit):
            "Y4M: FRAME line of frame \(frame) is longer than \(limit) bytes"
        case .truncatedFrame(let frame, let expected, let available):
            "Y4M: frame \(frame) needs \(expected) bytes of planes, only \(available) remain"
        case .io(let error):
            "Y4M: \(error)"
        }
    }
}
