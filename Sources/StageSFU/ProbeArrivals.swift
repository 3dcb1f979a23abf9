/// What a subscriber's transport-cc feedback says of the packets sent since a probe started,
/// padding included (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1). The probe's
/// padding rides the RTX stream, which no receiver report covers and no NACK asks for: a
/// link the probe overflows may drop mostly padding and show the media little loss, and the
/// probe passed on links it did not fit. Its own arrivals judge it too, as GCC's probe
/// controller measures a probe cluster by what of it arrived.
public struct ProbeArrivals: Sendable, Hashable {
    /// The first transport-wide number the probe's time sent.
    public let firstSequence: UInt16
    public private(set) var received = 0
    public private(set) var lost = 0
    /// Reported packets below which the loss says nothing yet.
    public static let packetsToJudge = 20

    public init(firstSequence: UInt16) {
        self.firstSequence = firstSequence
    }

    /// One packet's fate from the feedback; packets numbered before the probe are not counted
    /// (numbers within half the space after `firstSequence` are the probe's).
    public mutating func record(sequence: UInt16, arrived: Bool) {
        guard sequence &- firstSequence < 0x8000 else { return }
        if arrived { received += 1 } else { lost += 1 }
    }

    /// The share of what was reported that was lost, once `packetsToJudge` were (nil before).
    public var loss: Double? {
        let total = received + lost
        return total >= Self.packetsToJudge ? Double(lost) / Double(total) : nil
    }

    /// Whether the loss so far fails the probe now: as many lost as NACKs give it up
    /// (`ProbeSchedule.nacksToGiveUp`), and at least `ProbeSchedule.lossToGiveUp` of what was reported.
    public var failsNow: Bool {
        lost >= ProbeSchedule.nacksToGiveUp && Double(lost) >= ProbeSchedule.lossToGiveUp * Double(received + lost)
    }
}
