/// GCC's delay-based half as a sender runs it on transport-cc feedback
/// (draft-ietf-rmcat-gcc-02 §5, draft-holmer-rmcat-transport-wide-cc-extensions-01): every
/// packet the feedback reports goes through `DelayTrendline`, and into what arrived lately (by
/// the receiver's clock) and what was sent of the same packets (by ours, `RecentRate`).
///
/// `overuseCut(nowMicros:)` says when the sender's estimate is to drop, and to what it is cut
/// from (GCC's decrease, §5.5: a share of what arrived): while the trend says over-use, and
/// only while less arrives than `linkLimitedShare` of what was sent — a queue that grew before
/// the sender slowed down still reads as over-use, and cutting to what arrived while little was
/// sent would cut below what the link carries. While the over-use goes on, again every
/// `cutInterval`: the rate that arrived during the first cut still held some of a wider link's.
public struct DelayBasedDetector: Sendable {
    /// How often an over-use that goes on cuts again, in microseconds.
    public static let cutInterval: Int64 = 200_000
    /// An over-use cuts only while what arrived is under this share of what was sent.
    public static let linkLimitedShare = 0.9

    private var trendline = DelayTrendline()
    private var arrivedRate = RecentRate()
    private var sentRate = RecentRate()
    private var lastCut: Int64?

    public init() {}

    /// Whether the queue on the way is growing, draining or steady.
    public var usage: DelayTrendline.Usage { trendline.usage }

    /// What arrived lately, in bits per second (nil before a tenth of a second of arrivals).
    public var arrivedBitsPerSecond: Int? { arrivedRate.bitsPerSecond }

    /// One packet the feedback reports, in its order: `size` bytes on the wire, sent at `sentAt`
    /// (our clock), arrived at `arrivedAt` (the receiver's; nil: reported lost), microseconds.
    public mutating func packet(size: Int, sentAt: Int64, arrivedAt: Int64?) {
        sentRate.add(size: size, at: sentAt)
        guard let arrivedAt else { return }
        trendline.packet(sentAt: sentAt, arrivedAt: arrivedAt)
        arrivedRate.add(size: size, at: arrivedAt)
    }

    /// After a feedback packet's packets: the rate that arrived lately if the estimate is to be
    /// cut now (see the type's summary), else nil.
    public mutating func overuseCut(nowMicros: Int64) -> Int? {
        guard usage == .overusing else {
            lastCut = nil
            return nil
        }
        guard lastCut.map({ nowMicros - $0 >= Self.cutInterval }) ?? true,
              let arrived = arrivedRate.bitsPerSecond, let sent = sentRate.bitsPerSecond,
              Double(arrived) < Self.linkLimitedShare * Double(sent) else { return nil }
        lastCut = nowMicros
        return arrived
    }
}
