/// The multivariant (master) playlist of a channel or recording (RFC 8216bis §4.4.6).
public struct HLSMultivariantPlaylist: Sendable, Equatable {
    public struct Variant: Sendable, Equatable {
        public var uri: String
        /// Peak bits per second, audio included (BANDWIDTH).
        public var bandwidth: Int
        /// RFC 6381 codec strings, e.g. `avc1.64001f,mp4a.40.2`.
        public var codecs: String
        public var width: Int
        public var height: Int
        public var frameRate: Double

        public init(uri: String, bandwidth: Int, codecs: String, width: Int, height: Int, frameRate: Double) {
            self.uri = uri
            self.bandwidth = bandwidth
            self.codecs = codecs
            self.width = width
            self.height = height
            self.frameRate = frameRate
        }
    }

    public var variants: [Variant]
    /// EXT-X-INDEPENDENT-SEGMENTS: every segment starts with a keyframe (ours do).
    public var independentSegments = true

    public init(variants: [Variant]) { self.variants = variants }

    public func render() -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:6"]
        if independentSegments { lines.append("#EXT-X-INDEPENDENT-SEGMENTS") }
        for variant in variants {
            lines.append("#EXT-X-STREAM-INF:BANDWIDTH=\(variant.bandwidth),CODECS=\"\(variant.codecs)\",RESOLUTION=\(variant.width)x\(variant.height),FRAME-RATE=\(String(format: "%.3f", variant.frameRate))")
            lines.append(variant.uri)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// RFC 6381 codec strings read from a CMAF init section.
public enum CMAFCodecs {
    /// `avc1.PPCCLL` from the first `avcC` box (ISO/IEC 14496-15 §5.3.3: profile, compatibility,
    /// level follow the configuration version), nil when there is none.
    public static func avc1(initSection bytes: [UInt8]) -> String? {
        let tag: [UInt8] = Array("avcC".utf8)
        guard bytes.count >= 8 else { return nil }
        for index in 0...(bytes.count - 8) where bytes[index..<index + 4].elementsEqual(tag) {
            guard bytes[index + 4] == 1 else { continue }
            let hex = bytes[index + 5...index + 7].map { byte in
                let text = String(byte, radix: 16, uppercase: false)
                return text.count == 1 ? "0" + text : text
            }.joined()
            return "avc1." + hex
        }
        return nil
    }
}
