/// One participant's place on the canvas: where, how its video fits, and what is drawn over what.
public struct Tile: Sendable, Hashable, CustomStringConvertible {
    public var participantId: String
    /// For the placeholder and the name label.
    public var userId: String
    /// Even-aligned (I420 chroma is half resolution).
    public var rect: LayoutRect
    public var fillMode: VideoFillMode
    /// Higher is drawn later (on top). Grid tiles 0, the PiP window 1.
    public var zOrder: Int
    public var role: TileRole
    /// Whether the participant has running video (else the canvas draws a placeholder).
    public var hasVideo: Bool

    public init(participantId: String, userId: String, rect: LayoutRect, fillMode: VideoFillMode,
                zOrder: Int, role: TileRole, hasVideo: Bool) {
        self.participantId = participantId
        self.userId = userId
        self.rect = rect
        self.fillMode = fillMode
        self.zOrder = zOrder
        self.role = role
        self.hasVideo = hasVideo
    }

    public var description: String { "\(role) \(participantId) \(rect) \(fillMode.rawValue) z\(zOrder)" }
}

/// Which slot of the layout a tile fills.
public enum TileRole: String, Sendable, Hashable {
    /// An ordinary grid cell.
    case grid
    /// The featured slot (larger, beside the grid).
    case featured
    /// The PiP window, drawn over the rest.
    case pip
}
