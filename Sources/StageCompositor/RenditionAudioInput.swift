public import StageMedia

/// Conversions from the audio the mixer may hand over to the encoder's input: interleaved
/// stereo float in -1…1.
public enum RenditionAudioInput {
    /// 16-bit PCM (mono or stereo, interleaved) as interleaved stereo float; mono is
    /// duplicated to both channels.
    public static func stereoFloat(_ frame: AudioFrame) -> [Float] {
        let scale: Float = 1 / 32_768
        if frame.channels == 2 { return frame.samples.map { Float($0) * scale } }
        var stereo = [Float](repeating: 0, count: frame.samples.count * 2)
        for (index, sample) in frame.samples.enumerated() {
            let value = Float(sample) * scale
            stereo[2 * index] = value
            stereo[2 * index + 1] = value
        }
        return stereo
    }
}
