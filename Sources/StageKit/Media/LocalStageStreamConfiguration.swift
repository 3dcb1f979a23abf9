/// How a local stream is encoded (IVS `IVSLocalStageStreamConfiguration`).
public struct LocalStageStreamConfiguration: Sendable, Hashable {
    public var video = LocalStageStreamVideoConfiguration()
    public var audio = LocalStageStreamAudioConfiguration()
    public init() {}
}

/// A configuration value outside the range IVS allows; the message names the field and range.
public struct StageConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var field: String
    public var message: String
    public var description: String { "\(field): \(message)" }
}

/// What to give up first when bandwidth or CPU is short (IVS `IVSDegradationPreference`).
public enum DegradationPreference: String, Sendable, Hashable {
    case balanced, maintainFramerate, maintainResolution
}

/// Video encoding of a local stream (IVS `IVSLocalStageStreamVideoConfiguration`), with IVS's
/// ranges: bitrates 100 kbps–8.5 Mbps (min ≤ max), 10–60 fps, sides 160–1920 px.
public struct LocalStageStreamVideoConfiguration: Sendable, Hashable {
    public static let bitrateRange = 100_000...8_500_000
    public static let framerateRange = 10...60
    public static let sideRange = 160...1920
    public static let temporalLayersRange = 1...3

    public private(set) var maxBitrate = 2_500_000
    public private(set) var minBitrate = 150_000
    public private(set) var targetFramerate = 30
    public private(set) var width = 1280
    public private(set) var height = 720
    public var degradationPreference = DegradationPreference.balanced
    /// Simulcast (on by default): up to three layers (full, ½ and ¼ size) the server chooses from per subscriber.
    public var simulcastEnabled = true
    /// VP8 temporal layers per encoded layer (RFC 7741 §4.2): 1 (none), 2 (L1T2) or 3 (L1T3,
    /// the default, as Chrome sends VP8 simulcast). Upper layers can be dropped on the way to a
    /// subscriber whose link is narrower than the lowest layer, to halve or quarter its frame
    /// rate.
    public private(set) var temporalLayers = 3

    public init() {}

    public mutating func setMaxBitrate(_ bitsPerSecond: Int) throws(StageConfigurationError) {
        try check("maxBitrate", bitsPerSecond, in: Self.bitrateRange, unit: "bps")
        guard bitsPerSecond >= minBitrate else {
            throw StageConfigurationError(field: "maxBitrate", message: "\(bitsPerSecond) bps is below minBitrate \(minBitrate) bps")
        }
        maxBitrate = bitsPerSecond
    }

    public mutating func setMinBitrate(_ bitsPerSecond: Int) throws(StageConfigurationError) {
        try check("minBitrate", bitsPerSecond, in: Self.bitrateRange, unit: "bps")
        guard bitsPerSecond <= maxBitrate else {
            throw StageConfigurationError(field: "minBitrate", message: "\(bitsPerSecond) bps is above maxBitrate \(maxBitrate) bps")
        }
        minBitrate = bitsPerSecond
    }

    public mutating func setTargetFramerate(_ framesPerSecond: Int) throws(StageConfigurationError) {
        try check("targetFramerate", framesPerSecond, in: Self.framerateRange, unit: "fps")
        targetFramerate = framesPerSecond
    }

    /// Both sides even, as I420 needs.
    public mutating func setSize(width: Int, height: Int) throws(StageConfigurationError) {
        try check("size.width", width, in: Self.sideRange, unit: "px")
        try check("size.height", height, in: Self.sideRange, unit: "px")
        guard width % 2 == 0, height % 2 == 0 else {
            throw StageConfigurationError(field: "size", message: "\(width)×\(height): both sides must be even")
        }
        self.width = width
        self.height = height
    }

    public mutating func setTemporalLayers(_ count: Int) throws(StageConfigurationError) {
        try check("temporalLayers", count, in: Self.temporalLayersRange, unit: "layers")
        temporalLayers = count
    }
}

/// Audio encoding of a local stream: Opus, 20 ms frames, in-band FEC; bitrate 16–128 kbps.
public struct LocalStageStreamAudioConfiguration: Sendable, Hashable {
    public static let bitrateRange = 16_000...128_000
    public private(set) var maxBitrate = 64_000
    public init() {}

    public mutating func setMaxBitrate(_ bitsPerSecond: Int) throws(StageConfigurationError) {
        try check("audio.maxBitrate", bitsPerSecond, in: Self.bitrateRange, unit: "bps")
        maxBitrate = bitsPerSecond
    }
}

/// Throws, naming `field` and the range, when `value` is outside `range`.
private func check(_ field: String, _ value: Int, in range: ClosedRange<Int>, unit: String) throws(StageConfigurationError) {
    guard range.contains(value) else {
        throw StageConfigurationError(field: field, message: "\(value) \(unit) is outside \(range.lowerBound)…\(range.upperBound) \(unit)")
    }
}
