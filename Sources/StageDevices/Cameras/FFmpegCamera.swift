import StageMedia
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// Cameras that FFmpeg captures and writes as YUV4MPEG2 into a pipe that a ``Y4MPipeCamera``
/// reads: the screen of an X display (`x11grab`, XShm) and V4L2 webcams (`v4l2`, which
/// negotiates YUYV, MJPEG or I420 with the camera and converts). Needs `ffmpeg` on the `PATH`;
/// a capture process ends with the pipe (when this process exits, its next write fails).
public enum FFmpegCamera {
    private static let running = Mutex<[String: Y4MPipeCamera]>([:])

    /// The display of `display` (`:0`, `host:1.0`; nil: `$DISPLAY`) at `framerate`, scaled down
    /// to fit `maxWidth`×`maxHeight` when larger. The same display opened again (a republish)
    /// is the same camera while its capture runs.
    public static func screen(display: String?, framerate: Int, maxWidth: Int = 1920, maxHeight: Int = 1080,
                              headerTimeout: Duration = .seconds(10)) throws(MediaDeviceError) -> Y4MPipeCamera {
        guard let display = display ?? ProcessInfo.processInfo.environment["DISPLAY"], !display.isEmpty else {
            throw .unavailable(device: "screen", reason: "no X display: set DISPLAY or name one (screen::0)")
        }
        return try shared(key: "screen:\(display)", name: "screen \(display)", headerTimeout: headerTimeout,
                          input: ["-f", "x11grab", "-draw_mouse", "0", "-framerate", "\(framerate)", "-i", display],
                          maxWidth: maxWidth, maxHeight: maxHeight)
    }

    /// The V4L2 camera at `device` (`/dev/video0`), asked for `width`×`height` at `framerate`
    /// (the camera picks the nearest mode it has) and fitted into that size.
    public static func webcam(device: String, width: Int, height: Int, framerate: Int,
                              headerTimeout: Duration = .seconds(10)) throws(MediaDeviceError) -> Y4MPipeCamera {
        guard access(device, R_OK) == 0 else {
            throw .unavailable(device: "camera \(device)", reason: String(cString: strerror(errno)))
        }
        return try shared(key: device, name: "camera \(device)", headerTimeout: headerTimeout,
                          input: ["-f", "v4l2", "-framerate", "\(framerate)", "-video_size", "\(width)x\(height)", "-i", device],
                          maxWidth: width, maxHeight: height)
    }

    private static func shared(key: String, name: String, headerTimeout: Duration, input: [String],
                               maxWidth: Int, maxHeight: Int) throws(MediaDeviceError) -> Y4MPipeCamera {
        if let camera = running.withLock({ $0[key] }), !camera.ended, camera.failure == nil { return camera }
        let camera = try start(key: key, name: name, input: input, maxWidth: maxWidth, maxHeight: maxHeight,
                               headerTimeout: headerTimeout)
        running.withLock { $0[key] = camera }
        return camera
    }

    private static func start(key: String, name: String, input: [String], maxWidth: Int, maxHeight: Int,
                              headerTimeout: Duration) throws(MediaDeviceError) -> Y4MPipeCamera {
        // Even sizes (4:2:0), never larger than asked, the aspect ratio kept.
        let fit = "scale=w='min(\(maxWidth),iw)':h='min(\(maxHeight),ih)':force_original_aspect_ratio=decrease:force_divisible_by=2"
        let capture = try FFmpegCapture(name: name, arguments: input + ["-vf", fit, "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-"])
        return try capture.reading { descriptor throws(MediaDeviceError) in
            try Y4MPipeCamera(descriptor: descriptor, path: key, name: name, waitsForWriter: false, headerTimeout: headerTimeout)
        }
    }

    /// The path of `name` in `$PATH`, if it is there and executable.
    public static func executable(_ name: String) -> String? {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return paths.map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
    }
}

/// An ffmpeg process writing a stream to a pipe this process reads.
struct FFmpegCapture {
    let name: String
    let process = Process()
    let output = Pipe()
    let errors = Pipe()

    /// Starts `ffmpeg -nostdin -v error ARGUMENTS`; `name` names the device in errors.
    init(name: String, arguments: [String]) throws(MediaDeviceError) {
        self.name = name
        guard let ffmpeg = FFmpegCamera.executable("ffmpeg") else {
            throw .unavailable(device: name, reason: "capture runs ffmpeg, which is not on the PATH")
        }
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = ["-nostdin", "-v", "error"] + arguments
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw .unavailable(device: name, reason: "could not start ffmpeg: \(error)")
        }
    }

    /// Hands the read end of the output to `open`; if that fails, stops ffmpeg and reports the
    /// first line it wrote (no such display, a busy device) as the reason.
    func reading<T>(_ open: (Int32) throws(MediaDeviceError) -> T) throws(MediaDeviceError) -> T {
        let descriptor = dup(output.fileHandleForReading.fileDescriptor)
        try? output.fileHandleForReading.close()
        do {
            return try open(descriptor)
        } catch {
            process.terminate()
            let said = String(decoding: (try? errors.fileHandleForReading.readToEnd()) ?? Data(), as: UTF8.self)
            throw .unavailable(device: name, reason: said.split(separator: "\n").first.map(String.init) ?? "\(error)")
        }
    }
}
