import Foundation
import StageLayout

/// `--layout-json`: IVS's LayoutConfiguration in its JSON shape (StageLayout's coding: the shape
/// the API takes and the server passes on, already validated there; unknown values are still
/// refused here).
enum LayoutArgument {
    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    static func parse(_ text: String) throws -> LayoutConfiguration {
        do {
            return try JSONDecoder().decode(LayoutConfiguration.self, from: Data(text.utf8))
        } catch let DecodingError.dataCorrupted(context) {
            throw Invalid(description: "--layout-json: \(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)")
        } catch {
            throw Invalid(description: "--layout-json: not a LayoutConfiguration object ({\"grid\": {...}} or {\"pip\": {...}})")
        }
    }
}
