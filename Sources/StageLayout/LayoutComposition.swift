/// Where each participant goes on the canvas, for IVS's grid and PiP layouts.
///
/// Sources: IVS Real-Time API reference, `GridConfiguration`, `PipConfiguration` and
/// `LayoutConfiguration` (https://docs.aws.amazon.com/ivs/latest/RealTimeAPIReference/API_GridConfiguration.html,
/// …/API_PipConfiguration.html). What they fix, followed exactly:
/// - a participant is featured / in the PiP window when its token attribute named by
///   `featuredParticipantAttribute` / `pipParticipantAttribute` is the string `"true"`;
/// - participants without an order key are ordered by arrival (see `LayoutOrdering` for keyed ones);
/// - `omitStoppedVideo` leaves out participants with stopped video;
/// - grid: `videoAspectRatio` shapes the non-featured tiles (VIDEO 16:9, SQUARE 1:1, PORTRAIT 3:4);
///   `videoFillMode` unset means COVER for grid tiles and CONTAIN for the featured one; `gridGap` 2;
/// - PiP: `videoFillMode` COVER, `gridGap` 0, `pipPosition` BOTTOM_RIGHT, `pipOffset` 0 from the
///   two nearest edges; `pipBehavior` STATIC keeps the window's place and size "when all
///   participants have left", DYNAMIC expands it to the full composition.
///
/// Where IVS is silent, chosen here:
/// - grid cells are a balanced gallery (`LayoutCells`), the featured slot a speaker view with a
///   side strip (`LayoutFeatured`);
/// - AUTO tiles take the most common aspect ratio among the grid participants' known video sizes
///   (16:9 when none is known);
/// - PiP: everyone but the PiP participant is laid out under the window as a grid whose cells fill
///   the canvas (so one participant is full screen), with the featured slot as in the grid
///   layout; without a PiP participant there is no window. An unset window size is the PiP
///   participant's video aspect (16:9 if unknown) fitted in a quarter of the canvas each way;
///   with only one of `pipWidth`/`pipHeight` set, the other follows that aspect. The window is
///   clamped inside the canvas.
public struct CompositionLayout: Sendable, Hashable {
    public var canvas: LayoutSize
    public var configuration: LayoutConfiguration

    public init(canvas: LayoutSize, configuration: LayoutConfiguration) {
        self.canvas = canvas
        self.configuration = configuration
    }

    /// The tiles for `participants` (given in join order), sorted by `zOrder` (draw order).
    public func tiles(for participants: [LayoutParticipant]) -> [Tile] {
        let area = LayoutRect(x: 0, y: 0, width: canvas.width, height: canvas.height).evenAlignedInside
        switch configuration {
        case .grid(let grid): return gridTiles(grid, participants, area)
        case .pip(let pip): return pipTiles(pip, participants, area)
        }
    }

    private func gridTiles(_ grid: GridLayoutConfiguration, _ participants: [LayoutParticipant],
                           _ area: LayoutRect) -> [Tile] {
        let ordered = LayoutOrdering.ordered(participants, orderAttribute: grid.participantOrderAttribute,
                                             omitStoppedVideo: grid.omitStoppedVideo)
        let featured = ordered.first { $0.isMarked(by: grid.featuredParticipantAttribute) }
        let others = ordered.filter { $0.participantId != featured?.participantId }
        let aspect = grid.videoAspectRatio.widthOverHeight ?? Self.commonAspect(of: others)
        return Self.arrange(others: others, featured: featured, in: area, aspect: aspect, gap: grid.gridGap,
                            gridFill: grid.videoFillMode ?? .cover, featuredFill: grid.videoFillMode ?? .contain)
    }

    private func pipTiles(_ pip: PipLayoutConfiguration, _ participants: [LayoutParticipant],
                          _ area: LayoutRect) -> [Tile] {
        let ordered = LayoutOrdering.ordered(participants, orderAttribute: pip.participantOrderAttribute,
                                             omitStoppedVideo: pip.omitStoppedVideo)
        let windowed = ordered.first { $0.isMarked(by: pip.pipParticipantAttribute) }
        let rest = ordered.filter { $0.participantId != windowed?.participantId }
        let featured = rest.first { $0.isMarked(by: pip.featuredParticipantAttribute) }
        let others = rest.filter { $0.participantId != featured?.participantId }
        var tiles = Self.arrange(others: others, featured: featured, in: area, aspect: nil, gap: pip.gridGap,
                                 gridFill: pip.videoFillMode, featuredFill: pip.videoFillMode)
        if let windowed {
            let rect = rest.isEmpty && pip.pipBehavior == .dynamic
                ? area
                : LayoutPipWindow.rect(for: pip, canvas: area, videoSize: windowed.videoSize)
            tiles.append(Tile(participantId: windowed.participantId, userId: windowed.userId, rect: rect,
                              fillMode: pip.videoFillMode, zOrder: 1, role: .pip, hasVideo: windowed.hasVideo))
        }
        return tiles
    }

    /// The featured slot (if any) and a gallery of the others in `area`. A nil aspect: cells fill
    /// the area (the featured strip then uses 16:9).
    private static func arrange(others: [LayoutParticipant], featured: LayoutParticipant?, in area: LayoutRect,
                                aspect: Double?, gap: Int, gridFill: VideoFillMode,
                                featuredFill: VideoFillMode) -> [Tile] {
        func tile(_ participant: LayoutParticipant, _ rect: LayoutRect, _ fill: VideoFillMode, _ role: TileRole) -> Tile {
            Tile(participantId: participant.participantId, userId: participant.userId, rect: rect,
                 fillMode: fill, zOrder: 0, role: role, hasVideo: participant.hasVideo)
        }
        guard let featured else {
            let rects = LayoutCells.cells(count: others.count, in: area, aspect: aspect, gap: gap)
            return zip(others, rects).map { tile($0, $1, gridFill, .grid) }
        }
        let split = LayoutFeatured.split(others: others.count, in: area, aspect: aspect ?? 16.0 / 9.0, gap: gap)
        return [tile(featured, split.featured, featuredFill, .featured)]
            + zip(others, split.others).map { tile($0, $1, gridFill, .grid) }
    }

    /// The most common aspect ratio among known video sizes (first seen wins a tie); 16:9 if none.
    static func commonAspect(of participants: [LayoutParticipant]) -> Double {
        var counts: [Int: (count: Int, first: Int, aspect: Double)] = [:]
        for (index, size) in participants.compactMap(\.videoSize).enumerated() where size.width > 0 && size.height > 0 {
            let key = Int((size.widthOverHeight * 100).rounded())
            let entry = counts[key] ?? (0, index, size.widthOverHeight)
            counts[key] = (entry.count + 1, entry.first, entry.aspect)
        }
        let best = counts.values.min { lhs, rhs in
            lhs.count != rhs.count ? lhs.count > rhs.count : lhs.first < rhs.first
        }
        return best?.aspect ?? 16.0 / 9.0
    }
}
