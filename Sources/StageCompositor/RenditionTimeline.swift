/// Where each frame of a rendition falls: its timestamps in the tracks' timescales (base time
/// included), and which frames open a segment or close a part.
struct RenditionTimeline: Sendable, Equatable {
    let framerate: Int
    let framesPerPart: Int
    let framesPerSegment: Int
    /// The video track's timescale (`mdhd`): 90 kHz when a frame is a whole number of ticks.
    let videoTimescale: Int
    let ticksPerFrame: Int
    let audioSampleRate: Int
    /// The base time in each track's timescale.
    let videoBase: Int64
    let audioBase: Int64

    init(_ configuration: RenditionConfiguration) {
        framerate = configuration.framerate
        framesPerPart = configuration.framesPerPart
        framesPerSegment = configuration.framesPerSegment
        videoTimescale = 90_000 % configuration.framerate == 0 ? 90_000 : configuration.framerate * 1000
        ticksPerFrame = videoTimescale / configuration.framerate
        audioSampleRate = RenditionConfiguration.audioSampleRate
        videoBase = Int64((configuration.baseTimeSeconds * Double(videoTimescale)).rounded())
        audioBase = Int64((configuration.baseTimeSeconds * Double(audioSampleRate)).rounded())
    }

    func startsSegment(_ frame: Int) -> Bool { frame % framesPerSegment == 0 }
    func endsPart(_ frame: Int) -> Bool { (frame + 1) % framesPerPart == 0 }
    func segmentIndex(_ frame: Int) -> Int { frame / framesPerSegment }
    func partIndex(_ frame: Int) -> Int { frame % framesPerSegment / framesPerPart }

    /// Video timestamp of frame `frame` (decode = presentation: no B-frames).
    func videoTime(_ frame: Int64) -> Int64 { videoBase + frame * Int64(ticksPerFrame) }
    func audioTime(_ sample: Int64) -> Int64 { audioBase + sample }
    func seconds(ofFrame frame: Int) -> Double { Double(videoTime(Int64(frame))) / Double(videoTimescale) }
    func duration(frames: Int) -> Double { Double(frames * ticksPerFrame) / Double(videoTimescale) }
}
