/// Carries Opus packets in RTP (RFC 7587 §4): one Opus packet per RTP payload, unchanged — no
/// payload header, no fragmentation, no aggregation (§4.2). The RTP clock is always 48 kHz
/// whatever the coded bandwidth (§4.1), so a 20 ms frame advances the timestamp by 960.
///
/// Keeps the running RTP timestamp: each call returns the payload and the timestamp it goes
/// out with, then advances by the frame's duration. The marker bit is set on the first packet
/// after a silence (discontinuous transmission) only (§4.1 via RFC 3551 §4.1).
public struct OpusPacketizer: Sendable {
    /// The Opus RTP clock rate (RFC 7587 §4.1).
    public static let clockRate: UInt32 = 48_000
    /// Samples per channel in the usual 20 ms frame.
    public static let samplesPer20ms: UInt32 = 960

    /// One payload ready for `RTPPacketWriter`.
    public struct Payload: Hashable, Sendable {
        public var payload: [UInt8]
        public var timestamp: UInt32
        /// M: first packet of a talkspurt.
        public var marker: Bool
    }

    /// The RTP timestamp of the next packet.
    public private(set) var nextTimestamp: UInt32

    /// - Parameter initialTimestamp: the first packet's timestamp; random by default (RFC 3550 §5.1).
    public init(initialTimestamp: UInt32 = .random(in: 0...UInt32.max)) {
        self.nextTimestamp = initialTimestamp
    }

    /// The timestamp increment of a frame lasting `durationMicros` (20 000 µs → 960).
    public static func timestampIncrement(durationMicros: UInt64) -> UInt32 {
        UInt32(truncatingIfNeeded: durationMicros * UInt64(clockRate) / 1_000_000)
    }

    /// Wraps one Opus packet and advances the timestamp by its duration.
    /// - Parameters:
    ///   - opusPacket: one packet from `opus_encode` (TOC byte first).
    ///   - samplesPerChannel: the frame's duration at 48 kHz; 960 for 20 ms.
    ///   - startOfTalkspurt: the first packet after DTX silence (sets the marker bit).
    public mutating func packetize(_ opusPacket: [UInt8], samplesPerChannel: UInt32 = samplesPer20ms, startOfTalkspurt: Bool = false) -> Payload {
        let payload = Payload(payload: opusPacket, timestamp: nextTimestamp, marker: startOfTalkspurt)
        nextTimestamp &+= samplesPerChannel
        return payload
    }

    /// Skips the timestamp forward over frames not sent (DTX), keeping the 48 kHz clock running.
    public mutating func skip(samplesPerChannel: UInt32) {
        nextTimestamp &+= samplesPerChannel
    }
}
