import Foundation
import StageMedia
import Testing
@testable import StageCompositor

#if canImport(Glibc)
import Glibc
#endif

@Suite("Rendition encode cost", .serialized)
struct RenditionBenchTests {
    /// CPU seconds this process has used (user + system), all threads.
    private func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// Encodes 5 s of the moving pattern + tone into 1280×720@30 (2.5 Mb/s) and 640×360@30
    /// (0.8 Mb/s), both veryfast, and prints CPU and wall time per output second. Pictures and
    /// audio are made beforehand (the 360p picture is an independent pattern here; in the
    /// compositor it is a libyuv downscale of the canvas, which costs ~1 ms a frame). CPU time is
    /// the whole process's (x264 runs its own threads): run this suite alone
    /// (`--filter RenditionBenchTests`) for a figure other suites do not inflate.
    /// `noisy` adds camera-like grain (±12 luma, different every frame) so the encoder has to
    /// spend its whole bitrate; the bare pattern is nearly static and undershoots.
    @Test("720p + 360p at veryfast: CPU and wall time per output second",
          arguments: [(noisy: false, threads: 0), (noisy: true, threads: 0), (noisy: true, threads: 1)])
    func encodeCost(noisy: Bool, threads: Int) throws {
        let frames = 150
        let sizes = RenditionSize.all
        let pictures = try sizes.map { size in
            let base = try EncoderTestSupport.pattern(width: size.width, height: size.height, count: 15)
            return noisy ? Self.grain(base) : base
        }
        let audio = (0..<frames).map { EncoderTestSupport.tone(start: $0 * 1600, count: 1600) }
        let encoders = try sizes.map { size in
            var configuration = size.configuration()
            configuration.threads = threads
            return try RenditionEncoder(configuration: configuration)
        }
        var bytes = [0, 0]
        let cpuStart = cpuSeconds(), wallStart = ContinuousClock.now
        for frame in 0..<frames {
            for (index, encoder) in encoders.enumerated() {
                if let part = try encoder.encode(video: pictures[index][frame % 15], audio: audio[frame]) {
                    bytes[index] += part.bytes.count
                }
            }
        }
        for (index, encoder) in encoders.enumerated() { bytes[index] += try encoder.finish()?.bytes.count ?? 0 }
        let cpu = cpuSeconds() - cpuStart
        let wall = (ContinuousClock.now - wallStart) / .seconds(1)
        let seconds = Double(frames) / 30
        let rates = bytes.map { String(format: "%.2f", Double($0) * 8 / seconds / 1e6) }
        print(String(format: "encode cost (%@, x264 threads %@): %.3f CPU s and %.3f wall s per output second for 1280×720@30 2.5 Mb/s + 640×360@30 0.8 Mb/s veryfast (+AAC 128 kb/s each); output %@ Mb/s",
 noisy ? "pattern + grain" : "pattern", threads == 0 ? "auto" : "\(threads)", cpu / seconds, wall / seconds, rates.joined(separator: " / ")))
        #expect(bytes.allSatisfy { $0 > 0 })
    }

    /// The frames with ±12 of pseudo-random luma grain, a different draw for each.
    private static func grain(_ frames: [VideoFrame]) -> [VideoFrame] {
        var state: UInt32 = 0x1234_5678
        return frames.map { frame in
            var noisy = frame
            noisy.y.withUnsafeMutableBufferPointer { luma in
                for index in luma.indices {
                    state = state &* 1_664_525 &+ 1_013_904_223  // LCG: cheap in debug builds
                    let offset = Int(state >> 27) - 16
                    luma[index] = UInt8(clamping: Int(luma[index]) + offset * 3 / 4)
                }
            }
            return noisy
        }
    }
}
