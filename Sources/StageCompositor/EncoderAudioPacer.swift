/// Paces interleaved stereo audio into 1024-sample AAC frames on the video's clock.
///
/// The timeline is in samples at 48 kHz from the rendition's start: by the end of video frame
/// `n` it has reached `target = (n + 1) · 48000 / fps`. Only whole AAC frames that end at or
/// before the target are released, so a fragment cut after frame `n` never holds audio from
/// the next part, and nothing drifts: the audio track's length follows the frame count, not the
/// amount of audio the caller happened to give. A part's audio track therefore ends 2–3 AAC
/// frames (43–64 ms) before its video: up to one frame not yet whole at the cut, one frame the
/// encoder holds back, one frame of priming; the next part carries on from there.
///
/// - A caller that gives less than the timeline needs gets silence in the gap (counted in
///   ``insertedSilence``), so the audio track never falls behind the video.
/// - A caller that gets more than ``maximumLead`` samples ahead of the timeline has the excess
///   dropped from the oldest end (counted in ``droppedSamples``), so a burst cannot build up a
///   lasting audio delay.
///
/// The first ``primingSamples`` of the caller's audio are skipped: the AAC encoder delays its
/// output by that much (its priming, ISO/IEC 14496-3 §4.6.20 overlap), and the muxer puts the
/// first packet — the one that decodes to the priming — at time 0 without an edit list, so
/// skipping that much input keeps every later sample exactly at its video time.
struct EncoderAudioPacer {
    static let frameSize = 1024
    let channels: Int
    let sampleRate: Int
    let framerate: Int
    let primingSamples: Int
    let maximumLead: Int

    /// Samples (per channel) of the timeline already given to the encoder, priming included.
    private(set) var position: Int
    /// Interleaved samples waiting: they continue the timeline at `position`.
    private var pending: [Float] = []
    private var pendingStart = 0
    private var toSkip: Int
    private(set) var insertedSilence = 0
    private(set) var droppedSamples = 0

    init(channels: Int = 2, sampleRate: Int = 48_000, framerate: Int, primingSamples: Int = 1024,
         maximumLead: Int? = nil) {
        self.channels = channels
        self.sampleRate = sampleRate
        self.framerate = framerate
        self.primingSamples = primingSamples
        self.maximumLead = maximumLead ?? sampleRate / 5
        position = primingSamples
        toSkip = primingSamples
    }

    /// Samples per channel waiting to be encoded.
    var pendingCount: Int { (pending.count - pendingStart) / channels }

    /// The timeline's sample count at the end of video frame `frameIndex`.
    func target(afterFrame frameIndex: Int) -> Int { (frameIndex + 1) * sampleRate / framerate }

    /// Appends interleaved samples (`channels` values per sample).
    mutating func append(interleaved samples: UnsafeBufferPointer<Float>) {
        precondition(samples.count % channels == 0, "whole sample frames")
        var input = samples[...]
        if toSkip > 0 {
            let skipped = min(toSkip, input.count / channels)
            toSkip -= skipped
            input = input.dropFirst(skipped * channels)
        }
        pending.append(contentsOf: input)
    }

    /// Calls `body` with each whole AAC frame (planar: `channels` arrays of 1024) that fits before
    /// `target`, and its timeline position; then trims any excess lead.
    mutating func release(upTo target: Int, _ body: (_ planes: [[Float]], _ position: Int) throws(AVError) -> Void) throws(AVError) {
        while position + Self.frameSize <= target {
            try body(takeFrame(count: Self.frameSize), position)
            position += Self.frameSize
        }
        trimLead(beyond: target)
    }

    /// The last, partial frame at the end of the stream: what is pending up to `target`
    /// (padded with silence if the caller fell short), or `nil` when the timeline is complete.
    mutating func releaseRemainder(upTo target: Int) -> (planes: [[Float]], position: Int)? {
        let count = target - position
        guard count > 0 else { return nil }
        let start = position
        let planes = takeFrame(count: count)
        position += count
        return (planes, start)
    }

    /// Takes `count` samples per channel, de-interleaved; silence where none are pending.
    private mutating func takeFrame(count: Int) -> [[Float]] {
        var planes = [[Float]](repeating: [Float](repeating: 0, count: count), count: channels)
        let available = min(count, pendingCount)
        pending.withUnsafeBufferPointer { source in
            for channel in 0..<channels {
                planes[channel].withUnsafeMutableBufferPointer { plane in
                    var index = pendingStart + channel
                    for sample in 0..<available {
                        plane[sample] = source[index]
                        index += channels
                    }
                }
            }
        }
        pendingStart += available * channels
        insertedSilence += count - available
        compact()
        return planes
    }

    private mutating func trimLead(beyond target: Int) {
        let lead = position + pendingCount - target
        guard lead > maximumLead else { return }
        let drop = lead - maximumLead
        pendingStart += drop * channels
        droppedSamples += drop
        compact()
    }

    private mutating func compact() {
        if pendingStart == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingStart = 0
        } else if pendingStart > 16_384 {
            pending.removeFirst(pendingStart)
            pendingStart = 0
        }
    }
}
