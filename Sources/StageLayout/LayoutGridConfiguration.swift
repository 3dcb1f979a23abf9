/// IVS `GridConfiguration`, defaults applied.
/// https://docs.aws.amazon.com/ivs/latest/RealTimeAPIReference/API_GridConfiguration.html
public struct GridLayoutConfiguration: Sendable, Hashable {
    /// Attribute name; the participant whose token attributes set it to `"true"` takes the
    /// featured slot. nil or empty: no featured participant.
    public var featuredParticipantAttribute: String?
    /// Attribute name holding each participant's ordering key; participants without it (or with
    /// `""`) are ordered by arrival time.
    public var participantOrderAttribute: String?
    /// Leave out participants whose video is stopped. Default false.
    public var omitStoppedVideo: Bool
    /// Shape of the non-featured tiles. Default VIDEO (16:9).
    public var videoAspectRatio: VideoAspectRatio
    /// nil: IVS's default, COVER for grid tiles and CONTAIN for the featured participant.
    public var videoFillMode: VideoFillMode?
    /// Pixels between tiles. Default 2.
    public var gridGap: Int

    public init(
        featuredParticipantAttribute: String? = nil,
        participantOrderAttribute: String? = nil,
        omitStoppedVideo: Bool = false,
        videoAspectRatio: VideoAspectRatio = .video,
        videoFillMode: VideoFillMode? = nil,
        gridGap: Int = 2
    ) {
        self.featuredParticipantAttribute = featuredParticipantAttribute
        self.participantOrderAttribute = participantOrderAttribute
        self.omitStoppedVideo = omitStoppedVideo
        self.videoAspectRatio = videoAspectRatio
        self.videoFillMode = videoFillMode
        self.gridGap = max(0, gridGap)
    }
}
