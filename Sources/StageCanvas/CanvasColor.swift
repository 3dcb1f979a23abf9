/// A colour as 8-bit video-range YCbCr (BT.601, what VP8 and WebRTC cameras produce and the
/// compositor's encoder is told).
public struct CanvasColor: Sendable, Hashable {
    public var y: UInt8
    public var u: UInt8
    public var v: UInt8

    public init(y: UInt8, u: UInt8, v: UInt8) {
        self.y = y
        self.u = u
        self.v = v
    }

    /// Full-range RGB (0–255) to video-range BT.601 YCbCr, rounded.
    public init(red: Int, green: Int, blue: Int) {
        let (r, g, b) = (Double(red), Double(green), Double(blue))
        func clamp(_ value: Double) -> UInt8 { UInt8(max(0, min(255, value.rounded()))) }
        y = clamp(16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255)
        u = clamp(128 + (-37.797 * r - 74.203 * g + 112.0 * b) / 255)
        v = clamp(128 + (112.0 * r - 93.786 * g - 18.214 * b) / 255)
    }

    /// The canvas behind and between tiles: a dark grey (RGB 32, 32, 32).
    public static let background = CanvasColor(red: 32, green: 32, blue: 32)
    /// Text.
    public static let white = CanvasColor(y: 235, u: 128, v: 128)
    /// Behind a tile's name label.
    public static let labelBackdrop = CanvasColor(y: 16, u: 128, v: 128)

    /// A muted colour that is always the same for the same participant id (FNV-1a of its UTF-8,
    /// not Swift's per-process seeded `Hasher`), for placeholder tiles.
    public static func placeholder(for participantId: String) -> CanvasColor {
        var hash: UInt32 = 2_166_136_261
        for byte in participantId.utf8 {
            hash = (hash ^ UInt32(byte)) &* 16_777_619
        }
        let hue = Double(hash % 360)
        let (r, g, b) = rgb(hue: hue, saturation: 0.45, value: 0.55)
        return CanvasColor(red: r, green: g, blue: b)
    }

    /// HSV (hue in degrees, saturation and value 0–1) to RGB 0–255.
    static func rgb(hue: Double, saturation: Double, value: Double) -> (Int, Int, Int) {
        let chroma = value * saturation
        let sector = hue / 60
        let second = chroma * (1 - abs(sector.truncatingRemainder(dividingBy: 2) - 1))
        let (r, g, b): (Double, Double, Double) = switch Int(sector) % 6 {
        case 0: (chroma, second, 0)
        case 1: (second, chroma, 0)
        case 2: (0, chroma, second)
        case 3: (0, second, chroma)
        case 4: (second, 0, chroma)
        default: (chroma, 0, second)
        }
        let base = value - chroma
        return (Int(((r + base) * 255).rounded()), Int(((g + base) * 255).rounded()), Int(((b + base) * 255).rounded()))
    }
}
