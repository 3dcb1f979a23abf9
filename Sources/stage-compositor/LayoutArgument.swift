import Foundation
import StageCompositor

/// `--layout-json`: IVS's LayoutConfiguration shape, `{"grid": {...}}` or `{"pip": {...}}`, as
/// the server passes it (already validated by the API; unknown values are still refused here).
enum LayoutArgument {
    struct Grid: Decodable {
        var featuredParticipantAttribute: String?
        var participantOrderAttribute: String?
        var omitStoppedVideo: Bool?
        var videoAspectRatio: String?
        var videoFillMode: String?
        var gridGap: Int?
    }

    struct PiP: Decodable {
        var featuredParticipantAttribute: String?
        var participantOrderAttribute: String?
        var omitStoppedVideo: Bool?
        var pipParticipantAttribute: String?
        var pipBehavior: String?
        var pipOffset: Int?
        var pipPosition: String?
        var pipWidth: Int?
        var pipHeight: Int?
        var videoFillMode: String?
        var gridGap: Int?
    }

    struct Layout: Decodable {
        var grid: Grid?
        var pip: PiP?
    }

    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    static func parse(_ text: String) throws -> LayoutConfiguration {
        let layout: Layout
        do {
            layout = try JSONDecoder().decode(Layout.self, from: Data(text.utf8))
        } catch {
            throw Invalid(description: "--layout-json: not a LayoutConfiguration object ({\"grid\": {...}} or {\"pip\": {...}})")
        }
        if let pip = layout.pip {
            return .pip(PipLayoutConfiguration(
                featuredParticipantAttribute: pip.featuredParticipantAttribute, participantOrderAttribute: pip.participantOrderAttribute,
                omitStoppedVideo: pip.omitStoppedVideo ?? false, pipParticipantAttribute: pip.pipParticipantAttribute,
                pipBehavior: try value(pip.pipBehavior, "pip.pipBehavior") ?? .static, pipOffset: pip.pipOffset ?? 0,
                pipPosition: try value(pip.pipPosition, "pip.pipPosition") ?? .bottomRight, pipWidth: pip.pipWidth,
                pipHeight: pip.pipHeight, videoFillMode: try value(pip.videoFillMode, "pip.videoFillMode") ?? .cover,
                gridGap: pip.gridGap ?? 0))
        }
        let grid = layout.grid ?? Grid()
        return .grid(GridLayoutConfiguration(
            featuredParticipantAttribute: grid.featuredParticipantAttribute, participantOrderAttribute: grid.participantOrderAttribute,
            omitStoppedVideo: grid.omitStoppedVideo ?? false,
            videoAspectRatio: try value(grid.videoAspectRatio, "grid.videoAspectRatio") ?? .video,
            videoFillMode: try value(grid.videoFillMode, "grid.videoFillMode"), gridGap: grid.gridGap ?? 2))
    }

    private static func value<T: RawRepresentable>(_ text: String?, _ field: String) throws -> T? where T.RawValue == String {
        guard let text else { return nil }
        guard let value = T(rawValue: text) else { throw Invalid(description: "--layout-json: \(field) '\(text)' is not a valid value") }
        return value
    }
}
