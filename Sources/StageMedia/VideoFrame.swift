/// One uncompressed picture in I420 (YUV 4:2:0 planar, 8 bit): what cameras produce, encoders
/// take and decoders give back.
public struct VideoFrame: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// Luma, `width × height` bytes, rows packed (stride = width).
    public var y: [UInt8]
    /// Chroma planes, `((width + 1) / 2) × ((height + 1) / 2)` bytes each, rows packed.
    public var u: [UInt8]
    public var v: [UInt8]
    /// Capture time in microseconds on the capturing machine's monotonic clock.
    public var captureTimeMicros: UInt64
    /// For a received frame: when the sender captured it on its wall clock (µs since 1970),
    /// from its RTCP sender reports; nil before the first report and for local frames.
    public var senderTimeMicros: UInt64?

    public var chromaWidth: Int { Self.chromaSize(width: width, height: height).width }
    public var chromaHeight: Int { Self.chromaSize(width: width, height: height).height }

    /// The size of each chroma plane of a `width × height` picture: half each way, rounded up.
    static func chromaSize(width: Int, height: Int) -> (width: Int, height: Int) {
        ((width + 1) / 2, (height + 1) / 2)
    }

    public init(width: Int, height: Int, y: [UInt8], u: [UInt8], v: [UInt8], captureTimeMicros: UInt64 = 0) {
        precondition(width > 0 && height > 0, "a frame has a size")
        precondition(y.count == width * height, "luma plane is width × height")
        let chroma = Self.chromaSize(width: width, height: height)
        precondition(u.count == chroma.width * chroma.height && v.count == u.count, "chroma planes are quarter size")
        self.width = width
        self.height = height
        self.y = y
        self.u = u
        self.v = v
        self.captureTimeMicros = captureTimeMicros
    }

    /// A frame of one colour (video range black by default).
    public init(width: Int, height: Int, luma: UInt8 = 16, chroma: UInt8 = 128, captureTimeMicros: UInt64 = 0) {
        let chromaPlane = Self.chromaSize(width: width, height: height)
        let chromaCount = chromaPlane.width * chromaPlane.height
        self.init(width: width, height: height,
                  y: [UInt8](repeating: luma, count: width * height),
                  u: [UInt8](repeating: chroma, count: chromaCount),
                  v: [UInt8](repeating: chroma, count: chromaCount),
                  captureTimeMicros: captureTimeMicros)
    }
}

/// A block of 16-bit PCM, interleaved, 48 kHz: what microphones produce and Opus decoders give back.
public struct AudioFrame: Sendable, Equatable {
    public static let sampleRate = 48_000
    public let channels: Int
    /// Interleaved samples: `samplesPerChannel × channels` values.
    public var samples: [Int16]
    public var captureTimeMicros: UInt64
    /// For a received block: when the sender captured its first sample on its wall clock (µs
    /// since 1970), from its RTCP sender reports; nil before the first report and for local audio.
    public var senderTimeMicros: UInt64?

    public var samplesPerChannel: Int { samples.count / channels }

    public init(channels: Int, samples: [Int16], captureTimeMicros: UInt64 = 0) {
        precondition(channels == 1 || channels == 2, "mono or stereo")
        precondition(samples.count % channels == 0, "whole sample frames")
        self.channels = channels
        self.samples = samples
        self.captureTimeMicros = captureTimeMicros
    }
}
