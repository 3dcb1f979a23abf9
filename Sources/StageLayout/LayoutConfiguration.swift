/// The layout of a composition, as IVS's `LayoutConfiguration` gives it: a grid or a
/// picture-in-picture (PiP), each with its own parameters and IVS's defaults.
///
/// The one layout model: the control plane reads a request into it, the store and the API echo
/// keep its JSON (`LayoutCoding`), the compositor lays out its canvas with it
/// (`CompositionLayout`). Field meanings and defaults follow the IVS Real-Time API reference:
/// https://docs.aws.amazon.com/ivs/latest/RealTimeAPIReference/API_LayoutConfiguration.html
public enum LayoutConfiguration: Sendable, Hashable {
    case grid(GridLayoutConfiguration)
    case pip(PipLayoutConfiguration)
}

/// How video is fitted into its tile (IVS `videoFillMode`).
public enum VideoFillMode: String, Sendable, Hashable, CaseIterable {
    /// Stretched to the tile, aspect ratio not kept.
    case fill = "FILL"
    /// Scaled to cover the whole tile, the overflowing sides cropped (centre kept).
    case cover = "COVER"
    /// Scaled to fit inside the tile, the rest left as background (letterbox / pillarbox).
    case contain = "CONTAIN"
}

/// The shape of non-featured grid tiles (IVS `videoAspectRatio`): VIDEO is 16:9, SQUARE 1:1,
/// PORTRAIT 3:4; AUTO takes it from the participants' video (see `CompositionLayout`).
public enum VideoAspectRatio: String, Sendable, Hashable, CaseIterable {
    case auto = "AUTO"
    case video = "VIDEO"
    case square = "SQUARE"
    case portrait = "PORTRAIT"

    /// Width over height; nil for AUTO (decided from the video).
    public var widthOverHeight: Double? {
        switch self {
        case .auto: nil
        case .video: 16.0 / 9.0
        case .square: 1
        case .portrait: 3.0 / 4.0
        }
    }
}

/// What the PiP window does when every other participant has left (IVS `pipBehavior`):
/// STATIC keeps its position and size, DYNAMIC expands to the full composition.
public enum PipBehavior: String, Sendable, Hashable, CaseIterable {
    case `static` = "STATIC"
    case dynamic = "DYNAMIC"
}

/// The canvas corner the PiP window sits in (IVS `pipPosition`).
public enum PipPosition: String, Sendable, Hashable, CaseIterable {
    case topLeft = "TOP_LEFT"
    case topRight = "TOP_RIGHT"
    case bottomLeft = "BOTTOM_LEFT"
    case bottomRight = "BOTTOM_RIGHT"
}
