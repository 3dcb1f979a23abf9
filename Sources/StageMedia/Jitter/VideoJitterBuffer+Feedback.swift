public import StageWire

extension VideoJitterBuffer {
    /// The sequence numbers to NACK now (RFC 4585 §6.2.1), oldest first: missing ones not yet
    /// NACKed `maxNacksPerPacket` times, found missing less than `maxNackAgeMicros` ago, and
    /// not NACKed within the last RTT. Each is counted in `statistics.nacksSent`.
    /// - Parameters:
    ///   - now: the current time in µs.
    ///   - rtt: the round-trip time in µs; a retransmission cannot arrive sooner.
    public mutating func nacksDue(now: UInt64, rtt: UInt64) -> [UInt16] {
        let interval = Swift.max(rtt, configuration.minRetransmitIntervalMicros)
        // While waiting for a keyframe, gaps before the first keyframe held cannot help.
        let lowest = mode == .awaitingKeyframe ? keyframeStarts.min() ?? floor : floor
        var due: [Int64] = []
        for (sequence, gap) in missing where lowest.map({ sequence >= $0 }) ?? true {
            guard gap.nackCount < configuration.maxNacksPerPacket,
                now >= gap.detectedMicros, now - gap.detectedMicros <= configuration.maxNackAgeMicros
            else { continue }
            if let last = gap.lastNackMicros, now >= last, now - last < interval { continue }
            due.append(sequence)
        }
        // Written after the loop: mutating `missing` while iterating it would copy it.
        for sequence in due {
            missing[sequence]?.nackCount += 1
            missing[sequence]?.lastNackMicros = now
        }
        due.sort()
        statistics.nacksSent += due.count
        return due.map { UInt16(truncatingIfNeeded: $0) }
    }

    /// `nacksDue` packed into a Generic NACK, or `nil` when nothing is due.
    public mutating func genericNACK(now: UInt64, rtt: UInt64, senderSSRC: UInt32, mediaSSRC: UInt32) -> RTCPGenericNACK? {
        let due = nacksDue(now: now, rtt: rtt)
        guard !due.isEmpty else { return nil }
        return RTCPGenericNACK(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, lostSequenceNumbers: due)
    }

    /// Whether to send a keyframe request (PLI) now: a keyframe is needed, a packet has
    /// arrived, and none was requested in the last `keyframeRequestIntervalMicros`.
    /// Counts the request when it answers `true`.
    public mutating func keyframeRequestDue(now: UInt64) -> Bool {
        guard keyframeNeeded, hasReceivedPacket else { return false }
        if let last = lastKeyframeRequestMicros, now >= last, now - last < configuration.keyframeRequestIntervalMicros {
            return false
        }
        lastKeyframeRequestMicros = now
        statistics.keyframeRequests += 1
        return true
    }

    /// A PLI for the sender when `keyframeRequestDue(now:)` is true, else `nil`.
    public mutating func pictureLossIndication(now: UInt64, senderSSRC: UInt32, mediaSSRC: UInt32) -> RTCPPictureLossIndication? {
        keyframeRequestDue(now: now) ? RTCPPictureLossIndication(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC) : nil
    }
}
