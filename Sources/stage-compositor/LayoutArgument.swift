import Foundation
import StageCompositor
import StageProtocol

/// `--layout-json`: IVS's LayoutConfiguration (`IVSAPI.LayoutConfiguration`, the shape the API
/// takes and the server passes on, already validated there; unknown values are still refused
/// here). An empty attribute name means none, as in IVS.
enum LayoutArgument {
    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    static func parse(_ text: String) throws -> LayoutConfiguration {
        let layout: IVSAPI.LayoutConfiguration
        do {
            layout = try JSONDecoder().decode(IVSAPI.LayoutConfiguration.self, from: Data(text.utf8))
        } catch {
            throw Invalid(description: "--layout-json: not a LayoutConfiguration object ({\"grid\": {...}} or {\"pip\": {...}})")
        }
        if let pip = layout.pip {
            return .pip(PipLayoutConfiguration(
                featuredParticipantAttribute: named(pip.featuredParticipantAttribute), participantOrderAttribute: named(pip.participantOrderAttribute),
                omitStoppedVideo: pip.omitStoppedVideo ?? false, pipParticipantAttribute: named(pip.pipParticipantAttribute),
                pipBehavior: try value(pip.pipBehavior, "pip.pipBehavior") ?? .static, pipOffset: pip.pipOffset ?? 0,
                pipPosition: try value(pip.pipPosition, "pip.pipPosition") ?? .bottomRight, pipWidth: pip.pipWidth,
                pipHeight: pip.pipHeight, videoFillMode: try value(pip.videoFillMode, "pip.videoFillMode") ?? .cover,
                gridGap: pip.gridGap ?? 0))
        }
        let grid = layout.grid ?? IVSAPI.GridConfiguration()
        return .grid(GridLayoutConfiguration(
            featuredParticipantAttribute: named(grid.featuredParticipantAttribute), participantOrderAttribute: named(grid.participantOrderAttribute),
            omitStoppedVideo: grid.omitStoppedVideo ?? false,
            videoAspectRatio: try value(grid.videoAspectRatio, "grid.videoAspectRatio") ?? .video,
            videoFillMode: try value(grid.videoFillMode, "grid.videoFillMode"), gridGap: grid.gridGap ?? 2))
    }

    private static func named(_ attribute: String?) -> String? {
        attribute.flatMap { $0.isEmpty ? nil : $0 }
    }

    private static func value<T: RawRepresentable>(_ text: String?, _ field: String) throws -> T? where T.RawValue == String {
        guard let text else { return nil }
        guard let value = T(rawValue: text) else { throw Invalid(description: "--layout-json: \(field) '\(text)' is not a valid value") }
        return value
    }
}
