import StageLayout
import StageProtocol

/// The `layout` of StartComposition: grid (the default) or pip, read into StageLayout's model
/// (IVS's defaults applied there), which GetComposition echoes and the compositor is given.
extension ControlPlane {
    /// Reads `layout`; `canvas` bounds the PiP window.
    func readLayout(_ fields: RequestFields, canvas: CompositionPlan.VideoEncoding) throws(APIError) -> LayoutConfiguration {
        guard let layout = try fields.object("layout", allowed: ["grid", "pip"]) else { return .grid(GridLayoutConfiguration()) }
        let grid = try layout.object("grid", allowed: LayoutRules.gridMembers)
        let pip = try layout.object("pip", allowed: LayoutRules.pipMembers)
        let read: LayoutConfiguration
        switch (grid, pip) {
        case (.some, .some): throw .validation("layout: set grid or pip, not both")
        case (nil, nil): return .grid(GridLayoutConfiguration())
        case (.some(let grid), nil): read = .grid(try readGrid(grid))
        case (nil, .some(let pip)): read = .pip(try readPip(pip))
        }
        do {
            try LayoutRules.check(read, canvas: LayoutSize(width: canvas.width, height: canvas.height))
        } catch {
            throw .validation("layout.\(error.member): \(error.rule)")
        }
        return read
    }

    /// An attribute name member; `""` is none.
    private func attribute(_ fields: RequestFields, _ field: String) throws(APIError) -> String? {
        let name = try fields.string(field, length: LayoutRules.attributeLength, allowed: FieldRules.isNameCharacter,
                                     rule: FieldRules.nameRule)
        return name?.isEmpty == false ? name : nil
    }

    private func readGrid(_ fields: RequestFields) throws(APIError) -> GridLayoutConfiguration {
        let defaults = GridLayoutConfiguration()
        return GridLayoutConfiguration(
            featuredParticipantAttribute: try attribute(fields, "featuredParticipantAttribute"),
            participantOrderAttribute: try attribute(fields, "participantOrderAttribute"),
            omitStoppedVideo: try fields.bool("omitStoppedVideo") ?? defaults.omitStoppedVideo,
            videoAspectRatio: try fields.enumeration("videoAspectRatio", of: VideoAspectRatio.self) ?? defaults.videoAspectRatio,
            videoFillMode: try fields.enumeration("videoFillMode", of: VideoFillMode.self),
            gridGap: try fields.integer("gridGap", range: LayoutRules.nonNegative) ?? defaults.gridGap)
    }

    private func readPip(_ fields: RequestFields) throws(APIError) -> PipLayoutConfiguration {
        let defaults = PipLayoutConfiguration()
        return PipLayoutConfiguration(
            featuredParticipantAttribute: try attribute(fields, "featuredParticipantAttribute"),
            participantOrderAttribute: try attribute(fields, "participantOrderAttribute"),
            omitStoppedVideo: try fields.bool("omitStoppedVideo") ?? defaults.omitStoppedVideo,
            pipParticipantAttribute: try attribute(fields, "pipParticipantAttribute"),
            pipBehavior: try fields.enumeration("pipBehavior", of: PipBehavior.self) ?? defaults.pipBehavior,
            pipOffset: try fields.integer("pipOffset", range: LayoutRules.nonNegative) ?? defaults.pipOffset,
            pipPosition: try fields.enumeration("pipPosition", of: PipPosition.self) ?? defaults.pipPosition,
            pipWidth: try fields.integer("pipWidth", range: LayoutRules.positive),
            pipHeight: try fields.integer("pipHeight", range: LayoutRules.positive),
            videoFillMode: try fields.enumeration("videoFillMode", of: VideoFillMode.self) ?? defaults.videoFillMode,
            gridGap: try fields.integer("gridGap", range: LayoutRules.nonNegative) ?? defaults.gridGap)
    }
}
