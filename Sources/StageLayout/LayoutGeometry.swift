/// A size in pixels.
public struct LayoutSize: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var widthOverHeight: Double { height > 0 ? Double(width) / Double(height) : 1 }
    public var description: String { "\(width)×\(height)" }
}

/// A rectangle on the canvas in pixels, origin top-left.
public struct LayoutRect: Sendable, Hashable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var size: LayoutSize { LayoutSize(width: width, height: height) }
    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var isEmpty: Bool { width <= 0 || height <= 0 }
    public var description: String { "(\(x),\(y) \(width)×\(height))" }

    /// Whether every edge is on an even pixel, so the rectangle maps exactly onto I420's
    /// half-resolution chroma.
    public var isEvenAligned: Bool { x % 2 == 0 && y % 2 == 0 && width % 2 == 0 && height % 2 == 0 }

    /// The largest even-aligned rectangle inside this one (origin rounded up, far edges down).
    public var evenAlignedInside: LayoutRect {
        let left = (x + 1) & ~1, top = (y + 1) & ~1
        let right = maxX & ~1, bottom = maxY & ~1
        return LayoutRect(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
    }

    /// A `size` rectangle centred in this one (even-aligned when this one is).
    package func centred(_ size: LayoutSize) -> LayoutRect {
        LayoutRect(x: x + ((width - size.width) / 2) & ~1, y: y + ((height - size.height) / 2) & ~1,
                   width: size.width, height: size.height)
    }
}

/// Rounds down to an even number (never below 0).
package func evenFloor(_ value: Int) -> Int { max(0, value & ~1) }

/// Rounds a real pixel count down to an even number (never below 0).
package func evenFloor(_ value: Double) -> Int { evenFloor(Int(value.rounded(.down))) }
