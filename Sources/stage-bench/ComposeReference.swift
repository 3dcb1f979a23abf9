import Foundation

/// The reference job in ffmpeg 5.1: four VP8 inputs decoded (libvpx, the compositor's decoder),
/// each scaled to a 640×360 tile, `xstack`ed 2×2 into 1280×720, that canvas also scaled to
/// 640×360, both encoded with libx264 as the compositor configures it (veryfast, zerolatency,
/// high profile, CBR-like rate control with a half-second VBV, GOP 60, no scenecut, no B-frames)
/// with AAC 128 kb/s stereo from a 440 Hz sine per rendition, into two fragmented MP4 files
/// cut every 1/3 s (the parts). It runs as fast as it can; its CPU time comes from `wait4`.
struct ComposeReference {
    let scratch: URL
    let seconds: Int
    let fps: Int
    let canvas: (width: Int, height: Int)
    /// (size, video bitrate) of each rendition, canvas first.
    let renditions: [(width: Int, height: Int, bitrate: Int)]

    /// Four IVF files of `seconds` of `testsrc2` (each with its own hue) at `width`×`height`,
    /// VP8 from libvpx realtime (cpu-used 8, as the interop fixtures), made once before timing.
    func makeInputs(width: Int, height: Int, bitrate: Int) throws -> [URL] {
        try (0..<4).map { index in
            let file = scratch.appendingPathComponent("input-\(width)x\(height)-\(index).ivf")
            try ComposeProcesses.runQuietly(["/usr/bin/ffmpeg", "-v", "error", "-y", "-nostdin", "-f", "lavfi",
                                             "-i", "testsrc2=size=\(width)x\(height):rate=\(fps):duration=\(seconds)",
                                             "-vf", "hue=h=\(index * 90)", "-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8",
                                             "-b:v", "\(bitrate)", "-g", "\(fps * 2)", file.path],
                                            log: scratch.appendingPathComponent("make-input.log"))
            return file
        }
    }

    /// Runs the job on `inputs`; CPU seconds per output second and wall seconds.
    func run(inputs: [URL]) throws -> (cpuPerSecond: Double, wallSeconds: Double) {
        let tile = (width: canvas.width / 2, height: canvas.height / 2)
        var arguments = ["/usr/bin/ffmpeg", "-v", "error", "-y", "-nostdin"]
        for input in inputs { arguments += ["-c:v", "libvpx", "-i", input.path] }
        arguments += ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)"]
        var graph = inputs.indices.map { "[\($0):v]scale=\(tile.width):\(tile.height)[t\($0)]" }
        graph.append(inputs.indices.map { "[t\($0)]" }.joined() + "xstack=inputs=4:layout=0_0|w0_0|0_h0|w0_h0,split=\(renditions.count)"
                     + renditions.indices.map { "[s\($0)]" }.joined())
        for (index, rendition) in renditions.enumerated() {
            graph.append(index == 0 ? "[s0]null[v0]" : "[s\(index)]scale=\(rendition.width):\(rendition.height)[v\(index)]")
        }
        graph.append("[\(inputs.count):a]aformat=channel_layouts=stereo,asplit=\(renditions.count)" + renditions.indices.map { "[a\($0)]" }.joined())
        arguments += ["-filter_complex", graph.joined(separator: ";")]
        for (index, rendition) in renditions.enumerated() {
            arguments += ["-map", "[v\(index)]", "-map", "[a\(index)]",
                          "-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency", "-profile:v", "high", "-pix_fmt", "yuv420p",
                          "-b:v", "\(rendition.bitrate)", "-maxrate", "\(rendition.bitrate)", "-bufsize", "\(rendition.bitrate / 2)",
                          "-g", "\(fps * 2)", "-keyint_min", "\(fps * 2)", "-sc_threshold", "0", "-bf", "0",
                          "-x264-params", "scenecut=0:open-gop=0", "-r", "\(fps)",
                          "-c:a", "aac", "-b:a", "128k", "-ar", "48000", "-ac", "2",
                          "-f", "mp4", "-movflags", "+empty_moov+default_base_moof+frag_keyframe", "-frag_duration", "\(1_000_000 / 3)",
                          scratch.appendingPathComponent("reference-\(index).mp4").path]
        }
        let result = try ComposeProcesses.runMeasured(arguments, log: scratch.appendingPathComponent("reference.log"))
        guard result.status == 0 else {
            let tail = (try? String(contentsOf: scratch.appendingPathComponent("reference.log"), encoding: .utf8)) ?? ""
            throw BenchError("reference ffmpeg exited \(result.status): \(tail.suffix(1500))")
        }
        return (result.cpuSeconds / Double(seconds), result.wallSeconds)
    }
}
