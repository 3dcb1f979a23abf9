import Foundation
import StageMedia

/// A V4L2 capture device and the formats it offers (as `ffmpeg -f v4l2 -list_formats all` reads
/// them from the driver: pixel format and frame sizes).
public struct WebcamInfo: Sendable, Hashable {
    public struct Format: Sendable, Hashable {
        /// FFmpeg's name: `yuyv422`, `mjpeg`, `yuv420p`…
        public var pixelFormat: String
        public var compressed: Bool
        /// `640x480`, … (a range for stepwise sizes, as the driver gives it).
        public var sizes: [String]
    }

    public var device: String
    public var formats: [Format]
}

/// Lists `/dev/video*` with their formats. The devices and formats come from the driver through
/// FFmpeg (which also does the capture); a device FFmpeg cannot open is listed without formats.
public enum WebcamList {
    public static func list(timeout: Duration = .seconds(2)) -> [WebcamInfo] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? []
        return entries.filter { $0.hasPrefix("video") && Int($0.dropFirst(5)) != nil }
            .sorted { Int($0.dropFirst(5))! < Int($1.dropFirst(5))! }
            .map { WebcamInfo(device: "/dev/" + $0, formats: formats(of: "/dev/" + $0, timeout: timeout)) }
    }

    /// Reads FFmpeg's lines `[video4linux2,v4l2 @ 0x…] Raw : yuyv422 : YUYV 4:2:2 : 640x480 320x240`
    /// (kind, pixel format, the driver's description, which may hold colons, then the sizes).
    static func parseFormats(_ text: String) -> [WebcamInfo.Format] {
        text.split(separator: "\n").compactMap { line in
            guard let bracket = line.range(of: "] ") else { return nil }
            let rest = line[bracket.upperBound...]
            guard let kindEnd = rest.firstIndex(of: ":"), let lastColon = rest.lastIndex(of: ":"), kindEnd < lastColon else { return nil }
            let kind = rest[..<kindEnd].trimmingCharacters(in: .whitespaces)
            let afterKind = rest[rest.index(after: kindEnd)...]
            guard kind == "Raw" || kind == "Compressed", let nameEnd = afterKind.firstIndex(of: ":"), nameEnd < lastColon else { return nil }
            let name = afterKind[..<nameEnd].trimmingCharacters(in: .whitespaces)
            let sizes = rest[rest.index(after: lastColon)...].split(separator: " ").map(String.init)
            guard !name.isEmpty else { return nil }
            return WebcamInfo.Format(pixelFormat: name, compressed: kind == "Compressed", sizes: sizes)
        }
    }

    private static func formats(of device: String, timeout: Duration) -> [WebcamInfo.Format] {
        guard let ffmpeg = FFmpegCamera.executable("ffmpeg") else { return [] }
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = ["-hide_banner", "-nostdin", "-f", "v4l2", "-list_formats", "all", "-i", device]
        process.standardError = output
        process.standardOutput = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return [] }
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { usleep(10_000) }
        if process.isRunning { process.terminate() }
        let text = String(decoding: (try? output.fileHandleForReading.readToEnd()) ?? Data(), as: UTF8.self)
        return parseFormats(text)
    }
}
