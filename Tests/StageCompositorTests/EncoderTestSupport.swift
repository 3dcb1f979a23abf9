import Foundation
import StageDevices
import StageMedia
@testable import StageCompositor

/// Tools, temporary files and synthetic media for the encoder tests.
enum EncoderTestSupport {
    static func tool(_ name: String) -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
            + ["/usr/bin", "/usr/local/bin"]
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static let ffprobe = tool("ffprobe")
    static let ffmpeg = tool("ffmpeg")

    struct ToolResult {
        var status: Int32
        var data: Data
        var error: String
        var output: String { String(decoding: data, as: UTF8.self) }
    }

    /// Runs a tool to completion, its output and errors in files, not pipes: a child another test
    /// starts at the same moment can inherit a pipe's write end, and reading to its end then
    /// waits for that child (a `stage-server`) to exit.
    static func run(_ executable: String, _ arguments: [String]) throws -> ToolResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let outputPath = temporaryPath(".stdout"), errorPath = temporaryPath(".stderr")
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        defer {
            try? FileManager.default.removeItem(atPath: outputPath)
            try? FileManager.default.removeItem(atPath: errorPath)
        }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        defer { try? output.close() }
        let error = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        defer { try? error.close() }
        process.standardOutput = output
        process.standardError = error
        try process.run()
        process.waitUntilExit()
        let data = (try? Data(contentsOf: URL(fileURLWithPath: outputPath))) ?? Data()
        let errorData = (try? Data(contentsOf: URL(fileURLWithPath: errorPath))) ?? Data()
        return ToolResult(status: process.terminationStatus, data: data, error: String(decoding: errorData, as: UTF8.self))
    }

    static func temporaryPath(_ suffix: String) -> String {
        NSTemporaryDirectory() + "proscenium-enc-\(UUID().uuidString)\(suffix)"
    }

    /// Writes `chunks` one after another to a new temporary file and returns its path.
    static func write(_ chunks: [[UInt8]], suffix: String = ".mp4") throws -> String {
        let path = temporaryPath(suffix)
        var data = Data()
        for chunk in chunks { data.append(contentsOf: chunk) }
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// `ffprobe -show_entries … -of json` parsed.
    static func probeJSON(_ path: String, _ arguments: [String]) throws -> [String: Any] {
        guard let ffprobe else { return [:] }
        let result = try run(ffprobe, ["-v", "error"] + arguments + ["-of", "json", path])
        let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8))
        return object as? [String: Any] ?? [:]
    }

    /// What `ffmpeg -v error -i path -f null -` prints: empty when the file decodes cleanly.
    static func decodeErrors(_ path: String) throws -> String {
        guard let ffmpeg else { return "" }
        let result = try run(ffmpeg, ["-nostdin", "-v", "error", "-i", path, "-f", "null", "-"])
        return result.error + (result.status == 0 ? "" : "exit \(result.status)")
    }

    /// `count` stereo samples of a sine at `frequency` (0.5 amplitude) starting at sample `start`,
    /// silent before sample `onset`.
    static func tone(start: Int, count: Int, frequency: Double = 1000, onset: Int = 0) -> [Float] {
        var samples = [Float](repeating: 0, count: count * 2)
        for index in 0..<count where start + index >= onset {
            let value = Float(0.5 * sin(2 * Double.pi * frequency * Double(start + index) / 48_000))
            samples[2 * index] = value
            samples[2 * index + 1] = value
        }
        return samples
    }

    struct EncodedStream {
        var initSegment: [UInt8]
        var parts: [CMAFPart]
    }

    /// Encodes `frames` frames of the synthetic camera pattern (a few distinct frames, cycled, so
    /// debug builds are not slowed by drawing) and a 1 kHz tone (from `toneOnset` on), 1600
    /// samples a frame at 30 fps.
    static func encode(_ configuration: RenditionConfiguration, frames: Int, toneOnset: Int = 0) throws -> EncodedStream {
        let encoder = try RenditionEncoder(configuration: configuration)
        let pictures = try pattern(width: configuration.width, height: configuration.height, count: 15)
        let perFrame = 48_000 / configuration.framerate
        var parts: [CMAFPart] = []
        for index in 0..<frames {
            let audio = tone(start: index * perFrame, count: perFrame, onset: toneOnset)
            if let part = try encoder.encode(video: pictures[index % pictures.count], audio: audio) { parts.append(part) }
        }
        if let part = try encoder.finish() { parts.append(part) }
        return EncodedStream(initSegment: encoder.initSegment, parts: parts)
    }

    private nonisolated(unsafe) static var patterns: [String: [VideoFrame]] = [:]
    private static let patternLock = NSLock()

    /// `count` moving frames of the synthetic camera at this size (cached per size).
    static func pattern(width: Int, height: Int, count: Int) throws -> [VideoFrame] {
        let key = "\(width)x\(height)x\(count)"
        patternLock.lock()
        defer { patternLock.unlock() }
        if let cached = patterns[key] { return cached }
        let camera = try SyntheticCamera(width: width, height: height, framerate: 30)
        let frames = (0..<count).map { camera.frame(number: UInt32($0 * 2), captureTimeMicros: UInt64($0) * 66_666) }
        patterns[key] = frames
        return frames
    }
}
