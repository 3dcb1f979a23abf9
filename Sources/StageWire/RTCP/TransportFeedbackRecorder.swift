/// The receive side of transport-wide congestion control
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01): records when each of a sender's
/// packets arrived, by its transport-wide sequence number (§2), and turns the arrivals since the
/// last call into transport-cc feedback (§3.1), which the sender's estimator (GCC in browsers,
/// the SFU's per-subscriber estimate) reads its link from. The server keeps one per publisher,
/// the SDK one per subscribe connection.
///
/// Arrivals go into a ring of `window` slots starting at the first sequence number not yet
/// reported: recording allocates nothing, and a sender that jumps its sequence numbers cannot
/// make it hold more. A packet that arrives after its number was reported (as lost) is counted
/// in `lateArrivals` and left out, as is one beyond the window (`outOfWindow`).
public struct TransportFeedbackRecorder: Sendable {
    /// Sequence numbers held between two reports at most.
    public static let window = 4096
    /// Arrivals one feedback packet reports at most: even with a loss between every two, two-byte
    /// deltas and two-bit chunks that is under 1,200 bytes (losses in a row cost a two-byte run
    /// chunk per 8,191), so a feedback packet never needs IP fragmentation.
    public static let maximumReceivedPerPacket = 400

    private var arrivals = [Int64](repeating: Self.none, count: Self.window)
    private static let none = Int64.min
    /// The first sequence number (unwrapped) not yet reported; nil before the first packet.
    private var nextToReport: Int64?
    /// The newest sequence number (unwrapped) recorded since the last report.
    private var newest: Int64?
    private var feedbackCount: UInt8 = 0
    /// Packets that arrived after their sequence number was reported.
    public private(set) var lateArrivals = 0
    /// Packets whose sequence number was `window` or more past the first one not yet reported.
    public private(set) var outOfWindow = 0

    public init() {}

    /// Records that the packet numbered `sequence` arrived at `microseconds` (any monotonic clock).
    public mutating func record(_ sequence: UInt16, at microseconds: Int64) {
        let reference = newest ?? nextToReport ?? Int64(sequence)
        let unwrapped = reference + Int64(Int16(bitPattern: sequence &- UInt16(truncatingIfNeeded: reference)))
        guard let start = nextToReport else {
            nextToReport = unwrapped
            return store(unwrapped, at: microseconds)
        }
        guard unwrapped >= start else {
            lateArrivals += 1
            return
        }
        guard unwrapped - start < Int64(Self.window) else {
            outOfWindow += 1
            return
        }
        store(unwrapped, at: microseconds)
    }

    private mutating func store(_ unwrapped: Int64, at microseconds: Int64) {
        let slot = Int(unwrapped & Int64(Self.window - 1))
        if arrivals[slot] == Self.none { arrivals[slot] = microseconds }  // a duplicate keeps its first arrival
        newest = max(newest ?? unwrapped, unwrapped)
    }

    /// Feedback for every sequence number from the first not yet reported to the newest
    /// recorded (none when nothing arrived since the last call): received ones with their
    /// arrival, the others as not received. Split where one packet would describe more than
    /// `maximumReceivedPerPacket` arrivals or a receive delta would not fit 16 bits.
    public mutating func feedback(senderSSRC: UInt32, mediaSSRC: UInt32) -> [RTCPTransportCCFeedback] {
        guard let start = nextToReport, let end = newest else { return [] }
        var packets: [RTCPTransportCCFeedback] = []
        var base = start, statuses: [Int16?] = [], receivedCount = 0, referenceTime: Int64 = 0, previous: Int64 = 0
        func flush() {
            guard receivedCount > 0, let packet = try? RTCPTransportCCFeedback(
                senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, baseSequenceNumber: UInt16(truncatingIfNeeded: base),
                referenceTime: Int32(truncatingIfNeeded: referenceTime), feedbackPacketCount: feedbackCount, receiveDeltas: statuses)
            else { return }
            packets.append(packet)
            feedbackCount &+= 1
        }
        /// A new packet whose first arrival is `arrival`: the reference time is that arrival
        /// rounded down to 64 ms, and its delta counts from there (§3.1).
        func reference(_ arrival: Int64) {
            referenceTime = Self.floorDivide(arrival, RTCPTransportCCFeedback.referenceTimeUnit)
            previous = referenceTime * RTCPTransportCCFeedback.referenceTimeUnit
        }
        for sequence in start...end {
            let slot = Int(sequence & Int64(Self.window - 1))
            let arrival = arrivals[slot]
            arrivals[slot] = Self.none
            guard arrival != Self.none else {
                statuses.append(nil)
                continue
            }
            if receivedCount == 0 { reference(arrival) }
            var delta = Self.roundedDivide(arrival - previous, RTCPTransportCCFeedback.deltaUnit)
            if receivedCount >= Self.maximumReceivedPerPacket || !(Int64(Int16.min)...Int64(Int16.max)).contains(delta) {
                flush()
                (base, statuses, receivedCount) = (sequence, [], 0)
                reference(arrival)
                delta = Self.roundedDivide(arrival - previous, RTCPTransportCCFeedback.deltaUnit)
            }
            statuses.append(Int16(delta))
            receivedCount += 1
            // Deltas accumulate in their own unit, so rounding never drifts (§3.1.5).
            previous += delta * RTCPTransportCCFeedback.deltaUnit
        }
        flush()
        nextToReport = end + 1
        newest = nil
        return packets
    }

    private static func floorDivide(_ value: Int64, _ unit: Int64) -> Int64 {
        value >= 0 ? value / unit : -((-value + unit - 1) / unit)
    }

    private static func roundedDivide(_ value: Int64, _ unit: Int64) -> Int64 {
        floorDivide(value + unit / 2, unit)
    }
}
