import Foundation
import StageProtocol

/// The `layout` of StartComposition: grid (the default) or pip, IVS's defaults applied both to
/// the echo GetComposition returns and to the plan the compositor gets.
extension ControlPlane {
    enum LayoutRules {
        static let attributeRule = "allowed: letters, digits, '-' and '_' ([a-zA-Z0-9-_]*)"
        static let videoAspectRatios = ["AUTO", "VIDEO", "SQUARE", "PORTRAIT"]
        static let videoFillModes = ["FILL", "COVER", "CONTAIN"]
        static let pipBehaviors = ["STATIC", "DYNAMIC"]
        static let pipPositions = ["TOP_LEFT", "TOP_RIGHT", "BOTTOM_LEFT", "BOTTOM_RIGHT"]
        /// The model's integers are 32-bit.
        static let nonNegative = 0...Int(Int32.max)
        static let positive = 1...Int(Int32.max)
        static let gridFields: Set<String> = ["featuredParticipantAttribute", "omitStoppedVideo", "videoAspectRatio", "videoFillMode",
                                              "gridGap", "participantOrderAttribute"]
        static let pipFields: Set<String> = ["featuredParticipantAttribute", "omitStoppedVideo", "videoFillMode", "gridGap",
                                             "pipParticipantAttribute", "pipBehavior", "pipOffset", "pipPosition", "pipWidth",
                                             "pipHeight", "participantOrderAttribute"]
    }

    /// Reads `layout`; `canvas` bounds the PiP window.
    func readLayout(_ fields: RequestFields, canvas: CompositionPlan.VideoEncoding) throws(APIError)
        -> (echo: IVSAPI.LayoutConfiguration, plan: CompositionLayoutPlan) {
        guard let layout = try fields.object("layout", allowed: ["grid", "pip"]) else { return Self.defaultGrid }
        let grid = try layout.object("grid", allowed: LayoutRules.gridFields)
        let pip = try layout.object("pip", allowed: LayoutRules.pipFields)
        switch (grid, pip) {
        case (.some, .some): throw .validation("layout: set grid or pip, not both")
        case (nil, nil): return Self.defaultGrid
        case (.some(let grid), nil): return try readGrid(grid)
        case (nil, .some(let pip)): return try readPip(pip, canvas: canvas)
        }
    }

    static var defaultGrid: (echo: IVSAPI.LayoutConfiguration, plan: CompositionLayoutPlan) {
        let grid = CompositionLayoutPlan.Grid()
        return (.init(grid: .init(featuredParticipantAttribute: "", omitStoppedVideo: grid.omitStoppedVideo,
                                  videoAspectRatio: grid.videoAspectRatio, gridGap: grid.gridGap, participantOrderAttribute: "")),
                .grid(grid))
    }

    private func attribute(_ fields: RequestFields, _ field: String) throws(APIError) -> String {
        try fields.string(field, length: 0...128, allowed: FieldRules.isNameCharacter, rule: LayoutRules.attributeRule) ?? ""
    }

    private func readGrid(_ fields: RequestFields) throws(APIError) -> (echo: IVSAPI.LayoutConfiguration, plan: CompositionLayoutPlan) {
        var grid = CompositionLayoutPlan.Grid()
        let featured = try attribute(fields, "featuredParticipantAttribute")
        let order = try attribute(fields, "participantOrderAttribute")
        grid.featuredParticipantAttribute = featured.isEmpty ? nil : featured
        grid.participantOrderAttribute = order.isEmpty ? nil : order
        grid.omitStoppedVideo = try fields.bool("omitStoppedVideo") ?? grid.omitStoppedVideo
        grid.videoAspectRatio = try fields.enumeration("videoAspectRatio", allowed: LayoutRules.videoAspectRatios) ?? grid.videoAspectRatio
        grid.videoFillMode = try fields.enumeration("videoFillMode", allowed: LayoutRules.videoFillModes)
        grid.gridGap = try fields.integer("gridGap", range: LayoutRules.nonNegative) ?? grid.gridGap
        let echo = IVSAPI.GridConfiguration(featuredParticipantAttribute: featured, omitStoppedVideo: grid.omitStoppedVideo,
                                            videoAspectRatio: grid.videoAspectRatio, videoFillMode: grid.videoFillMode,
                                            gridGap: grid.gridGap, participantOrderAttribute: order)
        return (.init(grid: echo), .grid(grid))
    }

    private func readPip(_ fields: RequestFields, canvas: CompositionPlan.VideoEncoding) throws(APIError)
        -> (echo: IVSAPI.LayoutConfiguration, plan: CompositionLayoutPlan) {
        var pip = CompositionLayoutPlan.PiP()
        let featured = try attribute(fields, "featuredParticipantAttribute")
        let order = try attribute(fields, "participantOrderAttribute")
        let pipParticipant = try attribute(fields, "pipParticipantAttribute")
        pip.featuredParticipantAttribute = featured.isEmpty ? nil : featured
        pip.participantOrderAttribute = order.isEmpty ? nil : order
        pip.pipParticipantAttribute = pipParticipant.isEmpty ? nil : pipParticipant
        pip.omitStoppedVideo = try fields.bool("omitStoppedVideo") ?? pip.omitStoppedVideo
        pip.videoFillMode = try fields.enumeration("videoFillMode", allowed: LayoutRules.videoFillModes) ?? pip.videoFillMode
        pip.gridGap = try fields.integer("gridGap", range: LayoutRules.nonNegative) ?? pip.gridGap
        pip.pipBehavior = try fields.enumeration("pipBehavior", allowed: LayoutRules.pipBehaviors) ?? pip.pipBehavior
        pip.pipOffset = try fields.integer("pipOffset", range: LayoutRules.nonNegative) ?? pip.pipOffset
        pip.pipPosition = try fields.enumeration("pipPosition", allowed: LayoutRules.pipPositions) ?? pip.pipPosition
        pip.pipWidth = try fields.integer("pipWidth", range: LayoutRules.positive)
        pip.pipHeight = try fields.integer("pipHeight", range: LayoutRules.positive)
        if let width = pip.pipWidth, width > canvas.width {
            throw .validation("\(fields.name("pipWidth")): must be at most the composition's width \(canvas.width), got \(width)")
        }
        if let height = pip.pipHeight, height > canvas.height {
            throw .validation("\(fields.name("pipHeight")): must be at most the composition's height \(canvas.height), got \(height)")
        }
        let echo = IVSAPI.PipConfiguration(
            featuredParticipantAttribute: featured, omitStoppedVideo: pip.omitStoppedVideo, videoFillMode: pip.videoFillMode,
            gridGap: pip.gridGap, pipParticipantAttribute: pipParticipant, pipBehavior: pip.pipBehavior, pipOffset: pip.pipOffset,
            pipPosition: pip.pipPosition, pipWidth: pip.pipWidth, pipHeight: pip.pipHeight, participantOrderAttribute: order)
        return (.init(pip: echo), .pip(pip))
    }
}
