public import Logging
import Foundation

/// A swift-log handler writing one JSON object per line to stderr:
/// `{"ts":…,"level":…,"logger":…,"msg":…, <metadata>}`.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    let label: String

    public init(label: String) { self.label = label }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        write(level: event.level, message: event.message, metadata: event.metadata, error: event.error)
    }

    private func write(level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?, error: (any Error)?) {
        var object: [String: String] = [:]
        for (key, value) in metadata.merging(explicit ?? [:], uniquingKeysWith: { $1 }) { object[key] = "\(value)" }
        object["ts"] = ISO8601DateFormatter().string(from: Date())
        object["level"] = level.rawValue
        object["logger"] = label
        object["msg"] = message.description
        if let error { object["error"] = "\(error)" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var data = try? encoder.encode(object) else { return }
        data.append(0x0A)
        FileHandle.standardError.write(data)
    }
}
