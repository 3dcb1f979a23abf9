import Foundation
import StageMedia

/// Reads the test camera's ``FrameStamp`` from every frame of an H.264 rendition: ffmpeg
/// decodes the init section and the fragments (in order, from an IDR) into the luma of the
/// top band only, one raw picture per coded frame (`-fps_mode passthrough`: no duplicated or
/// dropped frames), and the stamp reader does the rest.
enum ComposeStamps {
    /// The capture time (monotonic µs of the publishing machine) of each decoded frame, nil
    /// where the stamp does not read.
    static func captureTimes(initSection: [UInt8], fragments: [[UInt8]], width: Int, scratch: URL) throws -> [UInt64?] {
        let input = scratch.appendingPathComponent("rendition.mp4"), output = scratch.appendingPathComponent("band.gray")
        var stream = Data(initSection)
        for fragment in fragments { stream.append(contentsOf: fragment) }
        try stream.write(to: input)
        let band = FrameStamp.bandHeight(forWidth: width)
        try ComposeProcesses.runQuietly(["/usr/bin/ffmpeg", "-v", "error", "-y", "-i", input.path, "-map", "0:v:0",
                                         "-fps_mode", "passthrough", "-vf", "crop=\(width):\(band):0:0",
                                         "-f", "rawvideo", "-pix_fmt", "gray", output.path],
                                        log: scratch.appendingPathComponent("decode.log"))
        let luma = try [UInt8](Data(contentsOf: output))
        defer {
            try? FileManager.default.removeItem(at: input)
            try? FileManager.default.removeItem(at: output)
        }
        let size = width * band
        var template = VideoFrame(width: width, height: band)
        return stride(from: 0, to: luma.count - size + 1, by: size).map { start in
            template.y = Array(luma[start..<start + size])
            return FrameStamp.read(from: template)?.captureTimeMicros
        }
    }
}
