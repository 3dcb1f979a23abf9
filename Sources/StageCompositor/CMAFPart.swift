/// One fragment of a rendition: a `moof`+`mdat` pair (ISO/IEC 14496-12 §8.8.4, §8.1.1) holding
/// the video of `frameCount` frames and the audio that goes with them — an HLS partial segment
/// (RFC 8216bis §4.4.4.9 `EXT-X-PART`), and, with the other parts of its segment, a media
/// segment (`EXTINF`). Play it after the rendition's init segment.
public struct CMAFPart: Sendable, Equatable {
    /// `moof`+`mdat`, both tracks.
    public var bytes: [UInt8]
    /// The rendition's frame number of its first video frame (0 at the rendition's start).
    public var firstFrameIndex: Int
    public var frameCount: Int
    /// `frameCount / fps`, from the timestamps: the `EXT-X-PART` `DURATION`.
    public var duration: Double
    /// Presentation time of the first frame, seconds (the video `tfdt` over its timescale,
    /// base time included).
    public var ptsSeconds: Double
    /// The first video sample is an IDR picture: `INDEPENDENT=YES` (RFC 8216bis §4.4.4.9).
    public var independent: Bool
    /// The part opens a media segment (and so, the GOP being a segment, is independent).
    public var startsSegment: Bool
    /// The part is the last of its segment (or of the stream): the segment is complete.
    public var endsSegment: Bool
    /// Segment number from the rendition's start, and this part's number within it.
    public var segmentIndex: Int
    public var partIndex: Int
    /// Audio samples (per channel, 48 kHz) in the part: about `duration × 48000`, a little
    /// more or less as AAC frames fall across the cut.
    public var audioSampleCount: Int

    public init(bytes: [UInt8], firstFrameIndex: Int, frameCount: Int, duration: Double, ptsSeconds: Double,
                independent: Bool, startsSegment: Bool, endsSegment: Bool, segmentIndex: Int, partIndex: Int, audioSampleCount: Int) {
        self.bytes = bytes
        self.firstFrameIndex = firstFrameIndex
        self.frameCount = frameCount
        self.duration = duration
        self.ptsSeconds = ptsSeconds
        self.independent = independent
        self.startsSegment = startsSegment
        self.endsSegment = endsSegment
        self.segmentIndex = segmentIndex
        self.partIndex = partIndex
        self.audioSampleCount = audioSampleCount
    }
}
