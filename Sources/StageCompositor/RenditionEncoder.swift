internal import CAV
public import StageMedia

/// One HLS rendition: H.264 (libx264) + AAC-LC encoded from the canvas and the mix, muxed into
/// fragmented MP4 and cut into parts of `framesPerPart` frames; every `partsPerSegment`-th part
/// opens a segment with an IDR picture.
///
/// Call ``encode(picture:audio:)`` once per canvas frame with the audio of that frame's
/// duration (48000 / fps stereo samples on average); it returns a ``CMAFPart`` each time a
/// part is complete. ``initSegment`` (`ftyp`+`moov`, the `EXT-X-MAP`) is ready from `init`.
/// Timestamps come from the frame count: frame `n` is at `baseTimeSeconds + n / fps`, and the
/// audio follows the same clock (see ``EncoderAudioPacer``), so parts have exact durations
/// and `tfdt` runs on without gaps across parts and segments.
///
/// Not thread-safe: one encoder from one task or actor. After an error, discard it.
public final class RenditionEncoder {
    public let configuration: RenditionConfiguration
    private let timeline: RenditionTimeline
    private let video: H264Encoder
    private let audio: AACEncoder
    private let muxer: CMAFMuxer
    private var pacer: EncoderAudioPacer

    /// Frame intervals encoded so far (held pictures count every interval); the next frame's index.
    public private(set) var frameCount = 0
    /// Intervals the picture being encoded lasts (its packet's duration).
    private var heldIntervals = 1
    private var part = PartProgress()
    private var finished = false

    public init(configuration: RenditionConfiguration) throws(AVError) {
        try configuration.validate()
        self.configuration = configuration
        timeline = RenditionTimeline(configuration)
        video = try H264Encoder(configuration)
        audio = try AACEncoder(bitrate: configuration.audioBitrate, sampleRate: RenditionConfiguration.audioSampleRate,
                               channels: RenditionConfiguration.audioChannels)
        muxer = try CMAFMuxer(video: video.context, audio: audio.context, videoTimescale: timeline.videoTimescale)
        pacer = EncoderAudioPacer(channels: RenditionConfiguration.audioChannels,
                                  sampleRate: RenditionConfiguration.audioSampleRate,
                                  framerate: configuration.framerate, primingSamples: audio.priming)
    }

    /// `ftyp`+`moov`: the init segment every part is played after.
    public var initSegment: [UInt8] { muxer.initSegment }

    /// Samples (per channel) of silence put in where the caller's audio fell short of the clock.
    public var insertedSilenceSamples: Int { pacer.insertedSilence }
    /// Samples (per channel) dropped because the caller's audio ran too far ahead of the clock.
    public var droppedAudioSamples: Int { pacer.droppedSamples }

    /// Encodes the next canvas frame and its audio.
    /// - Parameters:
    ///   - picture: I420, the configured size.
    ///   - audio: interleaved stereo float samples (-1…1), 48 kHz.
    ///   - intervals: how many frame intervals this picture lasts (1 normally). A compositor
    ///     that fell behind the wall clock holds a picture for several intervals instead of
    ///     encoding every one, so its output stays live; the held span never crosses a part
    ///     boundary (see ``intervalsLeftInPart``), so parts and segments stay on the grid.
    /// - Returns: the part this frame completed, if it was the last frame of one.
    public func encode(picture: EncoderPicture, audio samples: UnsafeBufferPointer<Float>,
                       intervals: Int = 1) throws(AVError) -> CMAFPart? {
        guard !finished else { throw .finished }
        let index = frameCount
        let span = max(1, min(intervals, intervalsLeftInPart))
        heldIntervals = span
        let packets = try video.encode(picture, index: index, keyframe: timeline.startsSegment(index)) { (packet) throws(AVError) in
            try writeVideo(packet)
        }
        guard packets == 1 else { throw .encoderDelayedOutput(frame: index, packets: packets) }
        frameCount += span
        part.pictures += 1
        pacer.append(interleaved: samples)
        let last = index + span - 1
        try encodeAudio(upTo: pacer.target(afterFrame: last))
        return timeline.endsPart(last) ? try cutPart() : nil
    }

    /// Frame intervals from the next frame to the end of its part: the longest a picture may be held.
    public var intervalsLeftInPart: Int { configuration.framesPerPart - frameCount % configuration.framesPerPart }

    /// ``encode(picture:audio:)`` for a ``VideoFrame`` and an interleaved stereo float array.
    public func encode(video frame: VideoFrame, audio samples: [Float], intervals: Int = 1) throws(AVError) -> CMAFPart? {
        try frame.withEncoderPicture { (picture) throws(AVError) in
            try samples.withUnsafeBufferPointer { (buffer) throws(AVError) in try encode(picture: picture, audio: buffer, intervals: intervals) }
        }
    }

    /// ``encode(picture:audio:)`` for a ``VideoFrame`` and 16-bit PCM (mono is duplicated to
    /// both channels).
    public func encode(video frame: VideoFrame, audio pcm: AudioFrame) throws(AVError) -> CMAFPart? {
        try encode(video: frame, audio: RenditionAudioInput.stereoFloat(pcm))
    }

    /// Ends the stream: drains the encoders and returns the last, shorter part if frames are
    /// left after the last full one (its audio then runs to the last frame's end). When the
    /// stream ended on a part boundary there is nothing to return, and the 2–3 AAC frames of
    /// audio the last part lacked are dropped (a part without video would have no duration).
    /// Further calls throw.
    public func finish() throws(AVError) -> CMAFPart? {
        guard !finished else { throw .finished }
        finished = true
        var last: CMAFPart? = nil
        if frameCount > part.firstFrame {
            try video.flush { (packet) throws(AVError) in try writeVideo(packet) }
            let end = pacer.target(afterFrame: frameCount - 1)
            try encodeAudio(upTo: end)
            if let remainder = pacer.releaseRemainder(upTo: end) {
                try audio.encode(planes: remainder.planes, pts: remainder.position) { (packet) throws(AVError) in
                    try writeAudio(packet)
                }
            }
            try audio.flush { (packet) throws(AVError) in try writeAudio(packet) }
            last = try cutPart()
        }
        try muxer.finish()
        return last
    }

    // MARK: - Internals

    /// What the part being filled holds so far.
    private struct PartProgress {
        var firstFrame = 0
        var videoSamples = 0
        /// Pictures given to the encoder (fewer than the frame span when some were held).
        var pictures = 0
        var audioSamples = 0
        /// Whether the part's first video sample is a keyframe (`nil` until it is written).
        var keyframe: Bool?
    }

    private func encodeAudio(upTo target: Int) throws(AVError) {
        try pacer.release(upTo: target) { (planes, position) throws(AVError) in
            try audio.encode(planes: planes, pts: position) { (packet) throws(AVError) in try writeAudio(packet) }
        }
    }

    /// Rescales a libx264 packet (pts = frame index in 1/fps) to the video track and queues it.
    private func writeVideo(_ packet: UnsafeMutablePointer<AVPacket>) throws(AVError) {
        if part.keyframe == nil { part.keyframe = packet.pointee.flags & AV_PKT_FLAG_KEY != 0 }
        packet.pointee.pts = timeline.videoTime(packet.pointee.pts)
        packet.pointee.dts = timeline.videoTime(packet.pointee.dts)
        packet.pointee.duration = Int64(timeline.ticksPerFrame * heldIntervals)
        try muxer.write(packet, stream: muxer.videoStream)
        part.videoSamples += 1
    }

    /// Moves an AAC packet (pts = timeline sample − priming, ≥ 0) to the audio track and queues it.
    private func writeAudio(_ packet: UnsafeMutablePointer<AVPacket>) throws(AVError) {
        packet.pointee.pts = timeline.audioTime(packet.pointee.pts)
        packet.pointee.dts = timeline.audioTime(packet.pointee.dts)
        try muxer.write(packet, stream: muxer.audioStream)
        part.audioSamples += Int(packet.pointee.duration)
    }

    private func cutPart() throws(AVError) -> CMAFPart {
        let first = part.firstFrame
        let frames = frameCount - first
        guard part.videoSamples == part.pictures else {
            throw .encoderDelayedOutput(frame: frameCount - 1, packets: part.videoSamples - part.pictures)
        }
        let bytes = try muxer.cutFragment()
        let cut = CMAFPart(
            bytes: bytes, firstFrameIndex: first, frameCount: frames,
            duration: timeline.duration(frames: frames), ptsSeconds: timeline.seconds(ofFrame: first),
            independent: part.keyframe ?? false, startsSegment: timeline.startsSegment(first),
            endsSegment: finished || timeline.startsSegment(frameCount),
            segmentIndex: timeline.segmentIndex(first), partIndex: timeline.partIndex(first),
            audioSampleCount: part.audioSamples)
        part = PartProgress(firstFrame: frameCount)
        return cut
    }
}

@available(*, unavailable, message: "owns FFmpeg encoders and a muxer; use from one task or actor")
extension RenditionEncoder: Sendable {}
