internal import CAV

/// An opened libavcodec encoder with its reusable input frame and output packet: the part the
/// H.264, AAC and JPEG wrappers share (the send/receive loop of `avcodec_send_frame` /
/// `avcodec_receive_packet`). Owns all three objects and frees them in `deinit`.
final class EncoderCodecContext {
    let context: UnsafeMutablePointer<AVCodecContext>
    /// The input frame, refilled for every `send`; its buffers are allocated by the owner.
    let frame: UnsafeMutablePointer<AVFrame>
    /// The output packet, valid only inside a `receivePackets` handler.
    let packet: UnsafeMutablePointer<AVPacket>

    /// Allocates a context for the encoder `name`, lets `configure` set it up (and its private
    /// options), then opens it.
    init(encoderNamed name: String,
         configure: (UnsafeMutablePointer<AVCodecContext>) throws(AVError) -> Void) throws(AVError) {
        guard let codec = avcodec_find_encoder_by_name(name) else { throw .encoderNotFound(name: name) }
        var context: UnsafeMutablePointer<AVCodecContext>? = avcodec_alloc_context3(codec)
        guard let allocatedContext = context else { throw .allocationFailed("\(name) codec context") }
        var frame: UnsafeMutablePointer<AVFrame>? = av_frame_alloc()
        guard let allocatedFrame = frame else {
            avcodec_free_context(&context)
            throw .allocationFailed("AVFrame")
        }
        guard let packet = av_packet_alloc() else {
            av_frame_free(&frame)
            avcodec_free_context(&context)
            throw .allocationFailed("AVPacket")
        }
        self.context = allocatedContext
        self.frame = allocatedFrame
        self.packet = packet
        // From here deinit frees everything.
        try configure(allocatedContext)
        try AVError.check(avcodec_open2(allocatedContext, codec, nil), "avcodec_open2(\(name))")
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&packet)
        var frame: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&frame)
        var context: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&context)
    }

    /// Sets a private (`priv_data`) option of the encoder, e.g. libx264's `preset`.
    static func setOption(_ context: UnsafeMutablePointer<AVCodecContext>, _ key: String, _ value: String) throws(AVError) {
        try AVError.check(av_opt_set(context.pointee.priv_data, key, value, 0), "av_opt_set(\(key)=\(value))")
    }

    /// Sends `frame` (or, with `nil`, the end of the stream) and hands every packet the encoder
    /// then has ready to `handler`. Returns how many packets there were.
    @discardableResult
    func send(_ frame: UnsafeMutablePointer<AVFrame>?, operation: String,
              handler: (UnsafeMutablePointer<AVPacket>) throws(AVError) -> Void) throws(AVError) -> Int {
        try AVError.check(avcodec_send_frame(context, frame), "avcodec_send_frame(\(operation))")
        return try receivePackets(operation: operation, handler: handler)
    }

    /// Receives packets until the encoder needs input (`EAGAIN`) or is drained (`EOF`).
    private func receivePackets(operation: String,
                                handler: (UnsafeMutablePointer<AVPacket>) throws(AVError) -> Void) throws(AVError) -> Int {
        var count = 0
        while true {
            let result = avcodec_receive_packet(context, packet)
            if result == AVErrorCode.again || result == AVErrorCode.endOfFile { return count }
            try AVError.check(result, "avcodec_receive_packet(\(operation))")
            defer { av_packet_unref(packet) }
            count += 1
            try handler(packet)
        }
    }

    /// Makes `frame`'s buffers writable (copying them if the encoder still holds a reference).
    func makeFrameWritable() throws(AVError) {
        try AVError.check(av_frame_make_writable(frame), "av_frame_make_writable")
    }
}

@available(*, unavailable, message: "owns libavcodec objects; use from one task or actor")
extension EncoderCodecContext: Sendable {}
