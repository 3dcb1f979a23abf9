/// IVS `PipConfiguration`, defaults applied.
/// https://docs.aws.amazon.com/ivs/latest/RealTimeAPIReference/API_PipConfiguration.html
public struct PipLayoutConfiguration: Sendable, Hashable {
    /// Attribute name; the participant with it set to `"true"` takes the featured slot.
    public var featuredParticipantAttribute: String?
    /// Attribute name holding each participant's ordering key (else arrival order).
    public var participantOrderAttribute: String?
    /// Leave out participants whose video is stopped. Default false.
    public var omitStoppedVideo: Bool
    /// Attribute name; the participant with it set to `"true"` goes in the PiP window.
    /// nil or empty: no PiP participant.
    public var pipParticipantAttribute: String?
    /// Default STATIC.
    public var pipBehavior: PipBehavior
    /// Pixels from the two canvas edges nearest `pipPosition`. Default 0.
    public var pipOffset: Int
    /// Default BOTTOM_RIGHT.
    public var pipPosition: PipPosition
    /// PiP window size in pixels; nil: from the canvas size and the PiP participant's video
    /// aspect ratio (see `CompositionLayout`).
    public var pipWidth: Int?
    public var pipHeight: Int?
    /// Default COVER, for every tile.
    public var videoFillMode: VideoFillMode
    /// Pixels between the tiles under the PiP window. Default 0.
    public var gridGap: Int

    public init(
        featuredParticipantAttribute: String? = nil,
        participantOrderAttribute: String? = nil,
        omitStoppedVideo: Bool = false,
        pipParticipantAttribute: String? = nil,
        pipBehavior: PipBehavior = .static,
        pipOffset: Int = 0,
        pipPosition: PipPosition = .bottomRight,
        pipWidth: Int? = nil,
        pipHeight: Int? = nil,
        videoFillMode: VideoFillMode = .cover,
        gridGap: Int = 0
    ) {
        self.featuredParticipantAttribute = featuredParticipantAttribute
        self.participantOrderAttribute = participantOrderAttribute
        self.omitStoppedVideo = omitStoppedVideo
        self.pipParticipantAttribute = pipParticipantAttribute
        self.pipBehavior = pipBehavior
        self.pipOffset = max(0, pipOffset)
        self.pipPosition = pipPosition
        self.pipWidth = pipWidth
        self.pipHeight = pipHeight
        self.videoFillMode = videoFillMode
        self.gridGap = max(0, gridGap)
    }
}
