/// The JSON shape of IVS's `LayoutConfiguration` (botocore's `ivs-realtime` model, 2020-07-14):
/// `{"grid": {...}}` or `{"pip": {...}}`. Decoding applies IVS's defaults to what is missing and
/// refuses an unknown enumeration value; encoding writes every member with its default applied,
/// an attribute name that is none as `""` (as IVS echoes it), and leaves out only the members
/// that stay unset (`grid.videoFillMode`, `pip.pipWidth`, `pip.pipHeight`). The one shape the
/// API answers with, the store keeps and the compositor is given on its command line.
extension LayoutConfiguration: Codable {
    private enum CodingKeys: String, CodingKey {
        case grid, pip
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let grid = try container.decodeIfPresent(GridLayoutConfiguration.self, forKey: .grid)
        let pip = try container.decodeIfPresent(PipLayoutConfiguration.self, forKey: .pip)
        switch (grid, pip) {
        case (.some, .some):
            throw DecodingError.dataCorruptedError(forKey: .pip, in: container, debugDescription: "set grid or pip, not both")
        case (_, .some(let pip)): self = .pip(pip)
        case (let grid, nil): self = .grid(grid ?? GridLayoutConfiguration())
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .grid(let grid): try container.encode(grid, forKey: .grid)
        case .pip(let pip): try container.encode(pip, forKey: .pip)
        }
    }
}

extension GridLayoutConfiguration: Codable {
    /// The members of IVS's `GridConfiguration`.
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case featuredParticipantAttribute, omitStoppedVideo, videoAspectRatio, videoFillMode, gridGap, participantOrderAttribute
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = GridLayoutConfiguration()
        self.init(
            featuredParticipantAttribute: try container.attributeName(.featuredParticipantAttribute),
            participantOrderAttribute: try container.attributeName(.participantOrderAttribute),
            omitStoppedVideo: try container.decodeIfPresent(Bool.self, forKey: .omitStoppedVideo) ?? defaults.omitStoppedVideo,
            videoAspectRatio: try container.decodeIfPresent(VideoAspectRatio.self, forKey: .videoAspectRatio) ?? defaults.videoAspectRatio,
            videoFillMode: try container.decodeIfPresent(VideoFillMode.self, forKey: .videoFillMode),
            gridGap: try container.decodeIfPresent(Int.self, forKey: .gridGap) ?? defaults.gridGap)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(featuredParticipantAttribute ?? "", forKey: .featuredParticipantAttribute)
        try container.encode(omitStoppedVideo, forKey: .omitStoppedVideo)
        try container.encode(videoAspectRatio, forKey: .videoAspectRatio)
        try container.encodeIfPresent(videoFillMode, forKey: .videoFillMode)
        try container.encode(gridGap, forKey: .gridGap)
        try container.encode(participantOrderAttribute ?? "", forKey: .participantOrderAttribute)
    }
}

extension PipLayoutConfiguration: Codable {
    /// The members of IVS's `PipConfiguration`.
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case featuredParticipantAttribute, omitStoppedVideo, videoFillMode, gridGap, pipParticipantAttribute, pipBehavior,
             pipOffset, pipPosition, pipWidth, pipHeight, participantOrderAttribute
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = PipLayoutConfiguration()
        self.init(
            featuredParticipantAttribute: try container.attributeName(.featuredParticipantAttribute),
            participantOrderAttribute: try container.attributeName(.participantOrderAttribute),
            omitStoppedVideo: try container.decodeIfPresent(Bool.self, forKey: .omitStoppedVideo) ?? defaults.omitStoppedVideo,
            pipParticipantAttribute: try container.attributeName(.pipParticipantAttribute),
            pipBehavior: try container.decodeIfPresent(PipBehavior.self, forKey: .pipBehavior) ?? defaults.pipBehavior,
            pipOffset: try container.decodeIfPresent(Int.self, forKey: .pipOffset) ?? defaults.pipOffset,
            pipPosition: try container.decodeIfPresent(PipPosition.self, forKey: .pipPosition) ?? defaults.pipPosition,
            pipWidth: try container.decodeIfPresent(Int.self, forKey: .pipWidth),
            pipHeight: try container.decodeIfPresent(Int.self, forKey: .pipHeight),
            videoFillMode: try container.decodeIfPresent(VideoFillMode.self, forKey: .videoFillMode) ?? defaults.videoFillMode,
            gridGap: try container.decodeIfPresent(Int.self, forKey: .gridGap) ?? defaults.gridGap)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(featuredParticipantAttribute ?? "", forKey: .featuredParticipantAttribute)
        try container.encode(omitStoppedVideo, forKey: .omitStoppedVideo)
        try container.encode(videoFillMode, forKey: .videoFillMode)
        try container.encode(gridGap, forKey: .gridGap)
        try container.encode(pipParticipantAttribute ?? "", forKey: .pipParticipantAttribute)
        try container.encode(pipBehavior, forKey: .pipBehavior)
        try container.encode(pipOffset, forKey: .pipOffset)
        try container.encode(pipPosition, forKey: .pipPosition)
        try container.encodeIfPresent(pipWidth, forKey: .pipWidth)
        try container.encodeIfPresent(pipHeight, forKey: .pipHeight)
        try container.encode(participantOrderAttribute ?? "", forKey: .participantOrderAttribute)
    }
}

extension VideoFillMode: Codable {}
extension VideoAspectRatio: Codable {}
extension PipBehavior: Codable {}
extension PipPosition: Codable {}

extension KeyedDecodingContainer {
    /// An attribute name member: absent or `""` is none (IVS: no featured / PiP participant,
    /// arrival order).
    fileprivate func attributeName(_ key: Key) throws -> String? {
        try decodeIfPresent(String.self, forKey: key).flatMap { $0.isEmpty ? nil : $0 }
    }
}
