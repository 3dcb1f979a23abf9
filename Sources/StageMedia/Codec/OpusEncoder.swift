internal import CMediaShims
internal import COpus

/// An Opus encoder over libopus for realtime speech and music (RFC 6716, RTP payload RFC 7587):
/// 48 kHz, `OPUS_APPLICATION_VOIP`, 20 ms frames, in-band FEC on (`OPUS_SET_INBAND_FEC(1)`,
/// `OPUS_SET_PACKET_LOSS_PERC(10)`), DTX off.
///
/// Not thread-safe; owns the `OpusEncoder*` and frees it in `deinit`.
public final class OpusEncoder {
    /// Samples per channel in one 20 ms frame at 48 kHz.
    public static let samplesPerFrame = 960
    /// Largest packet we ask libopus for (RFC 6716 §3.2.1 allows 1275 bytes per frame).
    static let maxPacketBytes = 1500

    public let channels: Int
    public private(set) var bitrateBps: Int
    private let encoder: OpaquePointer

    /// - Parameters:
    ///   - channels: 1 or 2.
    ///   - bitrateBps: defaults to 32 kbps per channel; 500…512 000 (RFC 6716 §2.1.1 range).
    ///   - packetLossPercent: expected loss, which sizes the in-band FEC (LBRR) data.
    public init(channels: Int = 1, bitrateBps: Int? = nil, packetLossPercent: Int = 10) throws(MediaCodecError) {
        guard channels == 1 || channels == 2 else { throw .invalidConfiguration("Opus channels must be 1 or 2, got \(channels)") }
        var error: Int32 = OPUS_OK
        guard let encoder = opus_encoder_create(Int32(AudioFrame.sampleRate), Int32(channels), OPUS_APPLICATION_VOIP, &error),
              error == OPUS_OK
        else { throw .opus("opus_encoder_create", error) }
        self.encoder = encoder
        self.channels = channels
        self.bitrateBps = bitrateBps ?? 32_000 * channels
        try Self.validate(bitrateBps: self.bitrateBps)
        try check(ms_opus_enc_set_bitrate(encoder, Int32(clamping: self.bitrateBps)), "OPUS_SET_BITRATE")
        try check(ms_opus_enc_set_inband_fec(encoder, 1), "OPUS_SET_INBAND_FEC")
        try check(ms_opus_enc_set_packet_loss_perc(encoder, Int32(clamping: packetLossPercent)), "OPUS_SET_PACKET_LOSS_PERC")
        try check(ms_opus_enc_set_dtx(encoder, 0), "OPUS_SET_DTX")
    }

    deinit { opus_encoder_destroy(encoder) }

    /// Encodes exactly one 20 ms frame (960 samples per channel) into one Opus packet.
    public func encode(_ frame: AudioFrame) throws(MediaCodecError) -> [UInt8] {
        guard frame.channels == channels else { throw .channelMismatch(expected: channels, got: frame.channels) }
        guard frame.samplesPerChannel == Self.samplesPerFrame else {
            throw .wrongSampleCount(expected: Self.samplesPerFrame, got: frame.samplesPerChannel)
        }
        var packet = [UInt8](repeating: 0, count: Self.maxPacketBytes)
        let length = frame.samples.withUnsafeBufferPointer { pcm in
            packet.withUnsafeMutableBufferPointer { out -> Int32 in
                guard let input = pcm.baseAddress, let output = out.baseAddress else { return OPUS_BAD_ARG }
                return opus_encode(encoder, input, Int32(Self.samplesPerFrame), output, Int32(out.count))
            }
        }
        guard length > 0 else { throw .opus("opus_encode", length) }
        packet.removeSubrange(Int(length)...)
        return packet
    }

    /// Changes the target bitrate (`OPUS_SET_BITRATE`, 500…512 000 bps) from the next frame on.
    public func setBitrate(_ bps: Int) throws(MediaCodecError) {
        try Self.validate(bitrateBps: bps)
        try check(ms_opus_enc_set_bitrate(encoder, Int32(clamping: bps)), "OPUS_SET_BITRATE")
        bitrateBps = bps
    }

    /// Encoder delay in samples per channel (`OPUS_GET_LOOKAHEAD`; 312 = 6.5 ms for VOIP at 48 kHz).
    public var lookaheadSamples: Int {
        var samples: Int32 = 0
        return ms_opus_enc_get_lookahead(encoder, &samples) == OPUS_OK ? Int(samples) : 0
    }

    /// libopus silently clamps bitrates to 500…300 000 per channel; out-of-range requests are
    /// more likely bugs (bps vs kbps), so they throw instead.
    private static func validate(bitrateBps: Int) throws(MediaCodecError) {
        guard (500...512_000).contains(bitrateBps) else {
            throw .invalidConfiguration("Opus bitrate \(bitrateBps) bps is outside 500…512 000")
        }
    }

    private func check(_ code: Int32, _ operation: String) throws(MediaCodecError) {
        guard code == OPUS_OK else { throw .opus(operation, code) }
    }
}

@available(*, unavailable, message: "owns a libopus encoder; use from one task or actor")
extension OpusEncoder: Sendable {}
