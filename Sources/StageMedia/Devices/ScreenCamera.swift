#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// The screen of an X display as a camera: FFmpeg's `x11grab` (XShm) captures it and writes
/// YUV4MPEG2 into a pipe that a ``Y4MPipeCamera`` reads. Needs `ffmpeg` on the `PATH`; the
/// capture process ends with the pipe (when this process exits, its next write fails).
public enum ScreenCamera {
    private static let running = Mutex<[String: Y4MPipeCamera]>([:])

    /// The display of `display` (`:0`, `host:1.0`; nil: `$DISPLAY`) at `framerate`, scaled down
    /// to fit `maxWidth`×`maxHeight` when larger. The same display opened again (a republish)
    /// is the same camera while its capture runs.
    public static func open(display: String?, framerate: Int, maxWidth: Int = 1920, maxHeight: Int = 1080,
                            headerTimeout: Duration = .seconds(10)) throws(MediaDeviceError) -> Y4MPipeCamera {
        guard let display = display ?? ProcessInfo.processInfo.environment["DISPLAY"], !display.isEmpty else {
            throw .unavailable(device: "screen", reason: "no X display: set DISPLAY or name one (screen::0)")
        }
        if let camera = running.withLock({ $0[display] }), !camera.ended, camera.failure == nil { return camera }
        let camera = try start(display: display, framerate: framerate, maxWidth: maxWidth, maxHeight: maxHeight,
                               headerTimeout: headerTimeout)
        running.withLock { $0[display] = camera }
        return camera
    }

    private static func start(display: String, framerate: Int, maxWidth: Int, maxHeight: Int,
                              headerTimeout: Duration) throws(MediaDeviceError) -> Y4MPipeCamera {
        let name = "screen \(display)"
        guard let ffmpeg = executable("ffmpeg") else {
            throw .unavailable(device: name, reason: "screen capture runs ffmpeg (x11grab), which is not on the PATH")
        }
        let pipe = Pipe()
        let errors = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        // Even sizes (4:2:0), never larger than asked, the aspect ratio kept.
        let fit = "scale=w='min(\(maxWidth),iw)':h='min(\(maxHeight),ih)':force_original_aspect_ratio=decrease:force_divisible_by=2"
        process.arguments = ["-nostdin", "-v", "error", "-f", "x11grab", "-draw_mouse", "0", "-framerate", "\(framerate)",
                             "-i", display, "-vf", fit, "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-"]
        process.standardOutput = pipe
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw .unavailable(device: name, reason: "could not start ffmpeg: \(error)")
        }
        let descriptor = dup(pipe.fileHandleForReading.fileDescriptor)
        try? pipe.fileHandleForReading.close()
        do {
            return try Y4MPipeCamera(descriptor: descriptor, path: "screen:\(display)", name: name,
                                     waitsForWriter: false, headerTimeout: headerTimeout)
        } catch {
            // ffmpeg says why (no such display, no XShm): its first line is the reason.
            process.terminate()
            let said = String(decoding: (try? errors.fileHandleForReading.readToEnd()) ?? Data(), as: UTF8.self)
            let reason = said.split(separator: "\n").first.map(String.init) ?? "\(error)"
            throw .unavailable(device: name, reason: reason)
        }
    }

    private static func executable(_ name: String) -> String? {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return paths.map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
    }
}
