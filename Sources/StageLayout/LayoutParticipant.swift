/// What the layout needs to know of one stage participant.
public struct LayoutParticipant: Sendable, Hashable {
    public var participantId: String
    public var userId: String
    /// The token's attributes (IVS `ParticipantTokenConfiguration.attributes`).
    public var attributes: [String: String]
    /// Whether the participant currently publishes running video.
    public var hasVideo: Bool
    /// The decoded video's size, when known (for AUTO tiles and the PiP window's aspect).
    public var videoSize: LayoutSize?

    public init(participantId: String, userId: String = "", attributes: [String: String] = [:],
                hasVideo: Bool = true, videoSize: LayoutSize? = nil) {
        self.participantId = participantId
        self.userId = userId
        self.attributes = attributes
        self.hasVideo = hasVideo
        self.videoSize = videoSize
    }

    /// Whether the attribute named `name` is the string `"true"` (IVS's test for the featured and
    /// PiP slots). A nil or empty name never matches.
    func isMarked(by name: String?) -> Bool {
        guard let name, !name.isEmpty else { return false }
        return attributes[name] == "true"
    }
}
