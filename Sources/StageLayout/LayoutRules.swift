/// What IVS accepts in a `LayoutConfiguration` beyond its JSON types (the `ivs-realtime` model's
/// constraints, API_GridConfiguration / API_PipConfiguration): attribute names of at most 128
/// characters (their characters are the model's name rule, which the control plane checks with
/// every name), non-negative gaps and offsets, a PiP window of at least one pixel and no larger
/// than the composition. The enumerations' allowed values are their `allCases`; the members are
/// the `CodingKeys` of each kind.
public enum LayoutRules {
    public static let attributeLength = 0...128
    /// The model's integers are 32-bit.
    public static let nonNegative = 0...Int(Int32.max)
    public static let positive = 1...Int(Int32.max)
    public static let gridMembers = Set(GridLayoutConfiguration.CodingKeys.allCases.map(\.stringValue))
    public static let pipMembers = Set(PipLayoutConfiguration.CodingKeys.allCases.map(\.stringValue))

    /// A rule a layout's member breaks: the member's path under `layout` and what it must be.
    public struct Violation: Error, Sendable, Hashable, CustomStringConvertible {
        /// e.g. `pip.pipWidth`.
        public var member: String
        public var rule: String
        public var description: String { "\(member): \(rule)" }

        public init(member: String, rule: String) {
            self.member = member
            self.rule = rule
        }
    }

    /// The rules that need the composition's size: the PiP window fits in it.
    public static func check(_ layout: LayoutConfiguration, canvas: LayoutSize) throws(Violation) {
        guard case .pip(let pip) = layout else { return }
        if let width = pip.pipWidth, width > canvas.width {
            throw Violation(member: "pip.pipWidth", rule: "must be at most the composition's width \(canvas.width), got \(width)")
        }
        if let height = pip.pipHeight, height > canvas.height {
            throw Violation(member: "pip.pipHeight", rule: "must be at most the composition's height \(canvas.height), got \(height)")
        }
    }
}
