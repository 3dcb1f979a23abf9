internal import CMediaShims
internal import COpus

/// An Opus decoder over libopus at 48 kHz, with loss concealment (PLC) and recovery from the
/// in-band FEC of the following packet (RFC 6716 §2.1.7, LBRR).
///
/// Not thread-safe; owns the `OpusDecoder*` and frees it in `deinit`.
public final class OpusDecoder {
    /// Most samples per channel one Opus packet can hold: 120 ms at 48 kHz (RFC 6716 §3.2.5).
    static let maxSamplesPerPacket = 5760

    public let channels: Int
    private let decoder: OpaquePointer

    public init(channels: Int = 1) throws(MediaCodecError) {
        guard channels == 1 || channels == 2 else { throw .invalidConfiguration("Opus channels must be 1 or 2, got \(channels)") }
        var error: Int32 = OPUS_OK
        guard let decoder = opus_decoder_create(Int32(AudioFrame.sampleRate), Int32(channels), &error), error == OPUS_OK
        else { throw .opus("opus_decoder_create", error) }
        self.decoder = decoder
        self.channels = channels
    }

    deinit { opus_decoder_destroy(decoder) }

    /// Decodes one packet (any legal Opus duration, normally 20 ms = 960 samples per channel).
    /// - Throws: `.emptyPacket`, or `.opus` with `OPUS_INVALID_PACKET` for malformed data.
    public func decode(_ packet: [UInt8], captureTimeMicros: UInt64 = 0) throws(MediaCodecError) -> AudioFrame {
        guard !packet.isEmpty else { throw .emptyPacket }
        return try run(packet, samples: Self.maxSamplesPerPacket, fec: false, "opus_decode", captureTimeMicros)
    }

    /// Produces audio for one lost packet: recovered from the in-band FEC of `nextPacket` when
    /// given (falls back to concealment if it carries none), else packet loss concealment.
    /// The duration is that of the last packet decoded (20 ms before any).
    public func decodeMissing(fecFrom nextPacket: [UInt8]?, captureTimeMicros: UInt64 = 0) throws(MediaCodecError) -> AudioFrame {
        let samples = lastPacketDuration
        if let nextPacket, !nextPacket.isEmpty {
            // With decode_fec = 1, frame_size must be exactly the missing duration (opus_decode docs).
            return try run(nextPacket, samples: samples, fec: true, "opus_decode (FEC)", captureTimeMicros)
        }
        return try run(nil, samples: samples, fec: false, "opus_decode (PLC)", captureTimeMicros)
    }

    /// Samples per channel of the last decoded packet (`OPUS_GET_LAST_PACKET_DURATION`), 960 before any.
    var lastPacketDuration: Int {
        var samples: Int32 = 0
        guard ms_opus_dec_get_last_packet_duration(decoder, &samples) == OPUS_OK, samples > 0 else {
            return OpusEncoder.samplesPerFrame
        }
        return Int(samples)
    }

    private func run(_ packet: [UInt8]?, samples: Int, fec: Bool, _ operation: String,
                     _ captureTimeMicros: UInt64) throws(MediaCodecError) -> AudioFrame {
        var pcm = [Int16](repeating: 0, count: samples * channels)
        let decoded: Int32 = pcm.withUnsafeMutableBufferPointer { out in
            guard let output = out.baseAddress else { return OPUS_BAD_ARG }
            if let packet {
                return packet.withUnsafeBufferPointer { data in
                    opus_decode(decoder, data.baseAddress, Int32(data.count), output, Int32(samples), fec ? 1 : 0)
                }
            }
            return opus_decode(decoder, nil, 0, output, Int32(samples), 0)
        }
        guard decoded >= 0 else { throw .opus(operation, decoded) }
        pcm.removeSubrange((Int(decoded) * channels)...)
        return AudioFrame(channels: channels, samples: pcm, captureTimeMicros: captureTimeMicros)
    }
}

@available(*, unavailable, message: "owns a libopus decoder; use from one task or actor")
extension OpusDecoder: Sendable {}
