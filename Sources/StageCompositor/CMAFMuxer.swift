internal import CAV

/// libavformat's `mp4` muxer writing fragmented MP4 into memory: one video and one audio
/// track, fragments cut only when asked, as HLS fMP4 (RFC 8216bis §3.1.2) wants.
///
/// Options (FFmpeg 5.1):
/// - `movflags=+empty_moov`: `avformat_write_header` writes `ftyp`+`moov` with no samples at
///   once — the init segment (`EXT-X-MAP`), taken before any fragment exists.
/// - `+frag_custom`: a fragment is cut only on `av_write_frame(ctx, NULL)`, so part
///   boundaries are ours.
/// - `+default_base_moof`: `tfhd` says offsets are from the `moof` (ISO/IEC 14496-12
///   §8.8.7.1 `default-base-is-moof`), so each part stands alone, as CMAF requires
///   (ISO/IEC 23000-19 §7.5.16).
/// - `+frag_discont` with `use_editlist=0` and `avoid_negative_ts=disabled`: `tfdt`
///   (§8.8.12) carries the packets' own decode times, so a timeline can start at a base time;
///   without them libavformat shifts the first packet to 0.
/// - `+skip_trailer`: no `mfra` at the end; the output is a live stream of fragments.
///
/// Both tracks share each fragment (one `moof` with two `traf`s), which HLS allows for muxed
/// renditions; a strict CMAF track file would hold one track, so the `cmfc` brand (`cmaf`
/// flag) is not claimed. `delay_moov` is not used: with global headers the encoders'
/// `avcC`/`esds` are known before the first packet.
final class CMAFMuxer {
    private let context: UnsafeMutablePointer<AVFormatContext>
    private let output: CMAFOutput
    let videoStream: UnsafeMutablePointer<AVStream>
    let audioStream: UnsafeMutablePointer<AVStream>
    private(set) var initSegment: [UInt8] = []

    static let movflags = "+empty_moov+frag_custom+default_base_moof+frag_discont+skip_trailer"

    /// - Parameters:
    ///   - videoTimescale: the video track's `mdhd` timescale (90 kHz when it is a whole
    ///     number of ticks per frame).
    init(video: UnsafeMutablePointer<AVCodecContext>, audio: UnsafeMutablePointer<AVCodecContext>,
         videoTimescale: Int) throws(AVError) {
        output = try CMAFOutput()
        var context: UnsafeMutablePointer<AVFormatContext>? = nil
        try AVError.check(avformat_alloc_output_context2(&context, nil, "mp4", nil), "avformat_alloc_output_context2(mp4)")
        guard let context else { throw .allocationFailed("AVFormatContext") }
        self.context = context
        context.pointee.pb = output.context
        context.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        guard let videoStream = avformat_new_stream(context, nil), let audioStream = avformat_new_stream(context, nil) else {
            avformat_free_context(context)
            throw .allocationFailed("AVStream")
        }
        self.videoStream = videoStream
        self.audioStream = audioStream
        // From here deinit frees the context.
        try AVError.check(avcodec_parameters_from_context(videoStream.pointee.codecpar, video),
                          "avcodec_parameters_from_context(video)")
        try AVError.check(avcodec_parameters_from_context(audioStream.pointee.codecpar, audio),
                          "avcodec_parameters_from_context(audio)")
        videoStream.pointee.time_base = AVRational(num: 1, den: Int32(videoTimescale))
        videoStream.pointee.avg_frame_rate = video.pointee.framerate
        audioStream.pointee.time_base = audio.pointee.time_base

        var options: OpaquePointer? = nil
        defer { av_dict_free(&options) }
        for (key, value) in [("movflags", Self.movflags), ("use_editlist", "0"), ("avoid_negative_ts", "disabled"),
                             ("video_track_timescale", String(videoTimescale))] {
            try AVError.check(av_dict_set(&options, key, value, 0), "av_dict_set(\(key))")
        }
        try AVError.check(avformat_write_header(context, &options), "avformat_write_header(mp4)")
        if let unused = av_dict_get(options, "", nil, AV_DICT_IGNORE_SUFFIX) {
            throw .invalidConfiguration("mp4 muxer ignored option \(String(cString: unused.pointee.key))")
        }
        let videoBase = videoStream.pointee.time_base, audioBase = audioStream.pointee.time_base
        guard videoBase.num == 1, videoBase.den == Int32(videoTimescale),
              audioBase.num == 1, audioBase.den == audio.pointee.sample_rate
        else {
            throw .unexpectedMuxerOutput(
                "stream time bases became \(videoBase.num)/\(videoBase.den) and \(audioBase.num)/\(audioBase.den)")
        }
        initSegment = try output.take()
        guard CMAFBoxes.topLevelTypes(initSegment) == ["ftyp", "moov"] else {
            throw .unexpectedMuxerOutput("init segment is \(CMAFBoxes.topLevelTypes(initSegment) ?? ["malformed"])")
        }
    }

    deinit {
        // Pending samples (a stream dropped before `finish`) are freed by the muxer's deinit,
        // which avformat_free_context runs; the AVIO context is ours (AVFMT_FLAG_CUSTOM_IO).
        avformat_free_context(context)
    }

    var videoTimeBase: AVRational { videoStream.pointee.time_base }
    var audioTimeBase: AVRational { audioStream.pointee.time_base }

    /// Queues one packet (timestamps already in its stream's time base) for the next fragment.
    func write(_ packet: UnsafeMutablePointer<AVPacket>, stream: UnsafeMutablePointer<AVStream>) throws(AVError) {
        packet.pointee.stream_index = stream.pointee.index
        try AVError.check(av_write_frame(context, packet), "av_write_frame(stream \(stream.pointee.index))")
    }

    /// Cuts the fragment (`av_write_frame(ctx, NULL)` under `frag_custom`) and returns its
    /// bytes: `moof`+`mdat`.
    func cutFragment() throws(AVError) -> [UInt8] {
        try AVError.check(av_write_frame(context, nil), "av_write_frame(flush fragment)")
        let bytes = try output.take()
        guard let types = CMAFBoxes.topLevelTypes(bytes), types.count >= 2, types.count % 2 == 0,
              stride(from: 0, to: types.count, by: 2).allSatisfy({ types[$0] == "moof" && types[$0 + 1] == "mdat" })
        else { throw .unexpectedMuxerOutput("fragment is \(CMAFBoxes.topLevelTypes(bytes) ?? ["malformed"])") }
        return bytes
    }

    /// Writes the trailer (nothing, under `skip_trailer`) once the last fragment is cut.
    func finish() throws(AVError) {
        try AVError.check(av_write_trailer(context), "av_write_trailer")
        let rest = try output.take()
        guard rest.isEmpty else { throw .unexpectedMuxerOutput("\(rest.count) bytes after the last fragment") }
    }
}

@available(*, unavailable, message: "owns an AVFormatContext; use from one task or actor")
extension CMAFMuxer: Sendable {}
