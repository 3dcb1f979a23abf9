import Foundation
@testable import StageMedia

/// Helpers for the device and file tests: temporary paths, Y4M and RIFF builders, the FFmpeg tools.
enum FileTestSupport {
    /// A fresh path in the temporary directory; the file is not created.
    static func temporaryPath(_ suffix: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("stagemedia-\(UUID().uuidString)\(suffix)").path
    }

    static func remove(_ path: String) { try? FileManager.default.removeItem(atPath: path) }

    static func write(_ bytes: [UInt8], to path: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }

    static func contents(of path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    // MARK: Y4M

    /// A Y4M stream: the header, then `FRAME` + `frameParameters` + planes for each frame.
    static func y4m(_ header: Y4MHeader, _ frames: [VideoFrame], frameParameters: String = "") -> [UInt8] {
        var bytes = header.serialized()
        for frame in frames {
            bytes += Array("FRAME\(frameParameters)\n".utf8) + frame.y + frame.u + frame.v
        }
        return bytes
    }

    /// A header line followed by raw bytes.
    static func y4m(_ headerLine: String, _ rest: [UInt8] = []) -> [UInt8] { Array(headerLine.utf8) + rest }

    // MARK: RIFF WAVE

    /// A PCM `fmt ` body with the given fields.
    static func fmtBody(tag: UInt16 = 1, channels: UInt16 = 1, rate: UInt32 = 48_000, bits: UInt16 = 16, blockAlign: UInt16? = nil) -> [UInt8] {
        let align = blockAlign ?? channels * bits / 8
        return le(tag) + le(channels) + le(rate) + le(rate * UInt32(align)) + le(align) + le(bits)
    }

    /// A WAVE_FORMAT_EXTENSIBLE `fmt ` body (40 bytes) with the given subformat GUID bytes.
    static func extensibleBody(channels: UInt16 = 2, subFormat: [UInt8] = WAVFormat.pcmSubFormat) -> [UInt8] {
        fmtBody(tag: 0xFFFE, channels: channels) + le(UInt16(22)) + le(UInt16(16)) + le(UInt32(3)) + subFormat
    }

    /// One chunk: id, size (declared, or the body's), body, pad byte if odd.
    static func chunk(_ id: String, _ body: [UInt8], declaredSize: UInt32? = nil) -> [UInt8] {
        Array(id.utf8) + le(declaredSize ?? UInt32(body.count)) + body + (body.count % 2 == 1 ? [0] : [])
    }

    /// `RIFF` size `WAVE` and the chunks.
    static func riff(_ chunks: [UInt8]...) -> [UInt8] {
        let body = chunks.flatMap { $0 }
        return Array("RIFF".utf8) + le(UInt32(4 + body.count)) + Array("WAVE".utf8) + body
    }

    static func pcmBytes(_ samples: [Int16]) -> [UInt8] { samples.flatMap { le(UInt16(bitPattern: $0)) } }

    static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }

    // MARK: FFmpeg tools

    /// The path of an executable on PATH (or in /usr/bin), if any.
    static func tool(_ name: String) -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin"]
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static let ffprobe = tool("ffprobe")
    static let ffmpeg = tool("ffmpeg")
    static let skipMessage = "ffprobe/ffmpeg not installed (apt-get install ffmpeg): written files are not validated"

    struct ToolResult {
        var status: Int32
        var output: String
        var error: String
    }

    /// Runs a tool to completion, capturing its output. Both streams go to files, not pipes: a
    /// child another test starts at the same moment (a `stage-server`) can inherit a pipe's write
    /// end, and reading to its end then waited for that server to exit — a whole test run hung so.
    static func run(_ executable: String, _ arguments: [String]) throws -> ToolResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let outputPath = temporaryPath(".stdout"), errorPath = temporaryPath(".stderr")
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        defer { remove(outputPath); remove(errorPath) }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        defer { try? output.close() }
        let error = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        defer { try? error.close() }
        process.standardOutput = output
        process.standardError = error
        try process.run()
        process.waitUntilExit()
        let outputData = (try? Data(contentsOf: URL(fileURLWithPath: outputPath))) ?? Data()
        let errorData = (try? Data(contentsOf: URL(fileURLWithPath: errorPath))) ?? Data()
        return ToolResult(
            status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
            error: String(decoding: errorData, as: UTF8.self))
    }

    /// `key=value` lines of `ffprobe -show_entries stream=…:format=duration` for the first stream.
    static func probe(_ path: String) throws -> [String: String] {
        guard let ffprobe else { return [:] }
        let result = try run(ffprobe, [
            "-v", "error", "-select_streams", "0", "-show_entries", "stream=codec_name,width,height,channels,sample_rate:format=duration",
            "-of", "default=noprint_wrappers=1", path,
        ])
        var fields: [String: String] = [:]
        for line in result.output.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        fields["stderr"] = result.error
        return fields
    }
}
