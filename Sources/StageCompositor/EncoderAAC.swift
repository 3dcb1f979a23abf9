internal import CAV

/// AAC-LC through FFmpeg's native `aac` encoder: 48 kHz, stereo, planar float input in frames
/// of 1024 samples (ISO/IEC 14496-3 §4.5.2.1 AAC frame length), the AudioSpecificConfig in
/// the init segment's `esds` (`AV_CODEC_FLAG_GLOBAL_HEADER`).
///
/// Packet timestamps come out ``priming`` (the encoder's `initial_padding`, 1024) before the
/// frame timestamps that went in; the encoder also holds one frame back, so packets trail the
/// input by one frame until ``flush(handler:)``.
final class AACEncoder {
    let codec: EncoderCodecContext
    let channels: Int
    /// Samples of encoder delay before the first input sample is decoded (`initial_padding`).
    let priming: Int

    init(bitrate: Int, sampleRate: Int = 48_000, channels: Int = 2) throws(AVError) {
        self.channels = channels
        codec = try EncoderCodecContext(encoderNamed: "aac") { (context) throws(AVError) in
            context.pointee.sample_rate = Int32(sampleRate)
            context.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
            av_channel_layout_default(&context.pointee.ch_layout, Int32(channels))
            context.pointee.bit_rate = Int64(bitrate)
            context.pointee.time_base = AVRational(num: 1, den: Int32(sampleRate))
            context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        }
        guard codec.context.pointee.frame_size == Int32(EncoderAudioPacer.frameSize) else {
            throw .invalidConfiguration("aac frame size is \(codec.context.pointee.frame_size), expected 1024")
        }
        priming = Int(codec.context.pointee.initial_padding)
        let frame = codec.frame
        frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        frame.pointee.sample_rate = Int32(sampleRate)
        frame.pointee.nb_samples = Int32(EncoderAudioPacer.frameSize)
        try AVError.check(av_channel_layout_copy(&frame.pointee.ch_layout, &codec.context.pointee.ch_layout),
                          "av_channel_layout_copy")
        try AVError.check(av_frame_get_buffer(frame, 0), "av_frame_get_buffer(audio)")
    }

    var context: UnsafeMutablePointer<AVCodecContext> { codec.context }

    /// Encodes one frame of planar samples (1024 per channel; fewer only for the last frame)
    /// whose first sample is at `pts` (1/48000), handing any packets ready to `handler`.
    @discardableResult
    func encode(planes: [[Float]], pts: Int,
                handler: (UnsafeMutablePointer<AVPacket>) throws(AVError) -> Void) throws(AVError) -> Int {
        precondition(planes.count == channels, "one plane per channel")
        let count = planes[0].count
        precondition(count > 0 && count <= EncoderAudioPacer.frameSize, "at most one AAC frame")
        try codec.makeFrameWritable()
        let frame = codec.frame
        frame.pointee.nb_samples = Int32(count)
        frame.pointee.pts = Int64(pts)
        for (channel, plane) in planes.enumerated() {
            guard let data = frame.pointee.extended_data[channel] else {
                throw .allocationFailed("audio plane \(channel)")
            }
            data.withMemoryRebound(to: Float.self, capacity: count) { destination in
                plane.withUnsafeBufferPointer { source in
                    destination.update(from: source.baseAddress!, count: count)
                }
            }
        }
        return try codec.send(frame, operation: "aac", handler: handler)
    }

    /// Drains the frame the encoder holds back (and a partial last one).
    @discardableResult
    func flush(handler: (UnsafeMutablePointer<AVPacket>) throws(AVError) -> Void) throws(AVError) -> Int {
        try codec.send(nil, operation: "aac flush", handler: handler)
    }
}

@available(*, unavailable, message: "owns an AAC encoder; use from one task or actor")
extension AACEncoder: Sendable {}
