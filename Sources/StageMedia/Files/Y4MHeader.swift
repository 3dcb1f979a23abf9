/// The stream header of a YUV4MPEG2 (`.y4m`) file, as mjpegtools' yuv4mpeg(5) defines it: the
/// magic `YUV4MPEG2`, then space-separated parameters, each a one-letter tag and its value,
/// ended by a line feed:
///
/// ```
/// YUV4MPEG2 W1280 H720 F30000:1001 Ip A1:1 C420jpeg XYSCSS=420JPEG\n
/// ```
///
/// `W` and `H` are required. `F` missing or `0:0` means unknown (read as 25 fps, as FFmpeg does).
/// `C` missing means `420jpeg`. Only 8-bit 4:2:0 is supported: `C420jpeg`, `C420paldv`,
/// `C420mpeg2`, `C420` (they differ only in chroma siting, which I420 frames do not carry).
/// `X` parameters and unknown tags are kept verbatim, in order, in ``otherParameters``.
public struct Y4MHeader: Sendable, Hashable {
    /// A ratio such as a frame rate (`30000:1001`) or a pixel aspect (`1:1`); `0:0` is unknown.
    public struct Ratio: Sendable, Hashable {
        public var numerator: Int
        public var denominator: Int
        public init(_ numerator: Int, _ denominator: Int) {
            self.numerator = numerator
            self.denominator = denominator
        }
    }

    /// The `I` parameter.
    public enum Interlacing: Character, Sendable, Hashable {
        case progressive = "p", topFieldFirst = "t", bottomFieldFirst = "b", mixed = "m", unknown = "?"
    }

    /// The supported `C` values: 8-bit 4:2:0 with different chroma siting.
    public enum Colourspace: String, Sendable, Hashable, CaseIterable {
        case c420jpeg = "420jpeg", c420paldv = "420paldv", c420mpeg2 = "420mpeg2", c420 = "420"
    }

    /// The magic every stream starts with.
    public static let magic: [UInt8] = Array("YUV4MPEG2".utf8)
    /// The longest header line read (including the line feed); longer ones are rejected.
    public static let maximumHeaderBytes = 4096
    /// Largest accepted picture: each side at most 4096, and at most 4096 × 2304 pixels.
    public static let maximumDimension = 4096
    public static let maximumPixels = 4096 * 2304

    public var width: Int
    public var height: Int
    public var frameRate: Ratio
    public var interlacing: Interlacing?
    public var pixelAspect: Ratio?
    public var colourspace: Colourspace
    /// Parameters kept as written, without their separating space: `X…` comments and unknown tags.
    public var otherParameters: [String]

    public init(
        width: Int, height: Int, frameRate: Ratio = Ratio(30, 1), interlacing: Interlacing? = .progressive,
        pixelAspect: Ratio? = Ratio(1, 1), colourspace: Colourspace = .c420jpeg, otherParameters: [String] = []
    ) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.interlacing = interlacing
        self.pixelAspect = pixelAspect
        self.colourspace = colourspace
        self.otherParameters = otherParameters
    }

    /// Frames per second; 25 when the rate is unknown (`F0:0` or absent).
    public var framesPerSecond: Double {
        guard frameRate.numerator > 0, frameRate.denominator > 0 else { return 25 }
        return Double(frameRate.numerator) / Double(frameRate.denominator)
    }

    /// Bytes of one frame's planes: luma plus two quarter-size chroma planes (rounded up).
    public var frameByteCount: Int {
        let chroma = VideoFrame.chromaSize(width: width, height: height)
        return width * height + 2 * chroma.width * chroma.height
    }

    /// The header line, line feed included.
    public func serialized() -> [UInt8] {
        var text = "YUV4MPEG2 W\(width) H\(height) F\(frameRate.numerator):\(frameRate.denominator)"
        if let interlacing { text += " I\(interlacing.rawValue)" }
        if let pixelAspect { text += " A\(pixelAspect.numerator):\(pixelAspect.denominator)" }
        text += " C\(colourspace.rawValue)"
        for parameter in otherParameters { text += " " + parameter }
        return Array(text.utf8) + [0x0A]
    }

    /// Parses a header line (without its line feed).
    public init(parsing line: ArraySlice<UInt8>) throws(Y4MError) {
        guard line.starts(with: Self.magic) else { throw .notYUV4MPEG2(prefix: Array(line.prefix(9))) }
        let rest = line.dropFirst(Self.magic.count)
        guard rest.isEmpty || rest.first == 0x20 else { throw .notYUV4MPEG2(prefix: Array(line.prefix(10))) }

        var width: Int?
        var height: Int?
        var header = Y4MHeader(width: 0, height: 0, frameRate: Ratio(0, 0), interlacing: nil, pixelAspect: nil)
        for token in rest.split(separator: 0x20) {
            let tag = Character(Unicode.Scalar(token[token.startIndex]))
            let value = token.dropFirst()
            let text = String(decoding: value, as: UTF8.self)
            switch tag {
            case "W": width = try Self.dimension(value, tag: tag)
            case "H": height = try Self.dimension(value, tag: tag)
            case "F": header.frameRate = try Self.ratio(value, tag: tag)
            case "A": header.pixelAspect = try Self.ratio(value, tag: tag)
            case "I":
                guard value.count == 1, let interlacing = Interlacing(rawValue: Character(Unicode.Scalar(value[value.startIndex]))) else {
                    throw .invalidParameter(tag: tag, value: text, rule: "interlacing is one of p, t, b, m, ?")
                }
                header.interlacing = interlacing
            case "C": header.colourspace = try Self.colourspace(text)
            default: header.otherParameters.append(String(decoding: token, as: UTF8.self))
            }
        }
        guard let width else { throw .missingParameter("W") }
        guard let height else { throw .missingParameter("H") }
        guard width <= Self.maximumDimension, height <= Self.maximumDimension, width * height <= Self.maximumPixels else {
            throw .frameTooLarge(width: width, height: height)
        }
        header.width = width
        header.height = height
        self = header
    }

    /// A width or height: decimal digits, at least 1 (the upper bound is checked on the pair).
    private static func dimension(_ value: ArraySlice<UInt8>, tag: Character) throws(Y4MError) -> Int {
        guard let number = decimal(value), number > 0 else {
            throw .invalidParameter(tag: tag, value: String(decoding: value, as: UTF8.self), rule: "a positive decimal number of pixels")
        }
        return number
    }

    /// `n:d`, both decimal (0:0 means unknown).
    private static func ratio(_ value: ArraySlice<UInt8>, tag: Character) throws(Y4MError) -> Ratio {
        let parts = value.split(separator: 0x3A, omittingEmptySubsequences: false)
        guard parts.count == 2, let numerator = decimal(parts[0]), let denominator = decimal(parts[1]),
            (numerator == 0) == (denominator == 0)
        else {
            throw .invalidParameter(tag: tag, value: String(decoding: value, as: UTF8.self), rule: "a ratio n:d of decimal numbers (0:0 for unknown)")
        }
        return Ratio(numerator, denominator)
    }

    /// Up to 9 decimal digits, so the value cannot overflow.
    private static func decimal(_ digits: ArraySlice<UInt8>) -> Int? {
        guard (1...9).contains(digits.count) else { return nil }
        var value = 0
        for digit in digits {
            guard (0x30...0x39).contains(digit) else { return nil }
            value = value * 10 + Int(digit - 0x30)
        }
        return value
    }

    private static func colourspace(_ value: String) throws(Y4MError) -> Colourspace {
        if let supported = Colourspace(rawValue: value) { return supported }
        // "420p10", "444p12", "mono16": a bit depth above 8 after the subsampling name.
        let digits = value.reversed().prefix { $0.isASCII && $0.isNumber }
        if !digits.isEmpty, let bits = Int(String(digits.reversed())), bits > 8, bits <= 32 {
            throw .unsupportedBitDepth(colourspace: value, bits: bits)
        }
        throw .unsupportedColourspace(value)
    }
}
