
/// One unit of CMAF output from a compositor rendition, as the server's HLS origin receives it:
/// an initialization section (ftyp+moov), a part (moof+mdat), or the end of the stream.
public struct HLSChunk: Sendable, Equatable {
    public enum Kind: String, Sendable, Codable {
        /// ISO/IEC 14496-12 `ftyp`+`moov`: the EXT-X-MAP of the parts that follow.
        case initialization = "init"
        /// One CMAF fragment (`moof`+`mdat`): an LL-HLS part (RFC 8216bis §4.4.4.9).
        case part
        /// A JPEG picture of the output (recording thumbnails).
        case thumbnail
        /// No more parts from this producer: the last segment is complete.
        case end
    }

    public var kind: Kind
    /// The rendition index in the multivariant playlist (0 = full size).
    public var rendition: Int
    /// Part duration in seconds (parts only).
    public var duration: Double
    /// The part starts with an IDR frame: EXT-X-PART's INDEPENDENT=YES.
    public var independent: Bool
    /// The part opens a new media segment (always independent).
    public var startsSegment: Bool
    /// The part is the last of its segment: the origin closes the segment at once, so its
    /// EXTINF is listed without waiting for the next part.
    public var endsSegment: Bool
    /// Wall-clock capture time of the part's first frame, ms since 1970 (EXT-X-PROGRAM-DATE-TIME).
    public var programDateMillis: Int64
    public var bytes: [UInt8]

    public init(kind: Kind, rendition: Int, duration: Double = 0, independent: Bool = false, startsSegment: Bool = false,
                endsSegment: Bool = false, programDateMillis: Int64 = 0, bytes: [UInt8] = []) {
        self.kind = kind
        self.rendition = rendition
        self.duration = duration
        self.independent = independent
        self.startsSegment = startsSegment
        self.endsSegment = endsSegment
        self.programDateMillis = programDateMillis
        self.bytes = bytes
    }
}

/// The header line that precedes a chunk's bytes on the compositor's output stream.
struct HLSChunkHeader: Codable, Equatable {
    var kind: HLSChunk.Kind
    var rendition: Int
    var duration: Double?
    var independent: Bool?
    var startsSegment: Bool?
    var endsSegment: Bool?
    var programDateMillis: Int64?
    var size: Int
}
