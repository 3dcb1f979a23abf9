/// Which VP8 temporal layers a consumer forwards within the simulcast layer it receives
/// (RFC 7741 §4.2: TID, the layer sync bit Y): the finer step below a spatial switch. Dropping
/// the frames above a temporal layer lowers the frame rate and the bitrate without a keyframe.
///
/// Decided per frame (a new RTP timestamp), so a frame is forwarded whole or not at all:
/// - down at once, at the next frame;
/// - up only at a frame of the higher layer with Y = 1, which references nothing but temporal
///   layer 0 (a frame without Y may reference a frame of its layer that was dropped);
/// - to the ceiling at a spatial switch (its keyframe references nothing).
///
/// Packets without a TID (a publisher without temporal layers) do not come here: they are forwarded.
public struct TemporalLayerFilter: Sendable, Equatable {
    /// The highest temporal layer to forward (the allocator's choice); nil: all.
    public var ceiling: Int?
    /// The highest temporal layer forwarded now; nil: all.
    public private(set) var current: Int?
    /// The RTP timestamp of the newest frame seen, on the timeline of the layer forwarded.
    private var frameTimestamp: UInt32?
    /// A timestamp this far behind the newest is another timeline (a publisher that
    /// reconnected), not a late packet: 10 s of the 90 kHz video clock.
    static let newTimeline: UInt32 = 900_000

    /// The temporal layer fields of one packet's VP8 payload descriptor.
    public struct Mark: Sendable, Equatable {
        /// TID.
        public var layer: UInt8
        /// Y: the frame depends on temporal layer 0 only.
        public var sync: Bool
        /// Where the packet sits in its frame, for the munger to judge a gap before it (nil: not known).
        public var edges: RTPMunger.FrameEdges?
        public init(layer: UInt8, sync: Bool, edges: RTPMunger.FrameEdges? = nil) {
            self.layer = layer
            self.sync = sync
            self.edges = edges
        }
    }

    public init() {}

    /// Whether to forward one packet with temporal layer `mark`, in the frame of RTP time `timestamp`.
    /// - Parameter switched: the packet starts a spatial switch (a keyframe).
    public mutating func accept(_ mark: Mark, timestamp: UInt32, switched: Bool) -> Bool {
        let layer = Int(mark.layer)
        if switched {
            // Another simulcast layer: its own timestamps from here on.
            current = ceiling
            frameTimestamp = timestamp
        } else if frameTimestamp.map({ Self.isNewer(timestamp, than: $0) || $0 &- timestamp > Self.newTimeline }) ?? true {
            // A new frame: the only place where the layer changes.
            switch (current, ceiling) {
            case let (current?, ceiling?) where ceiling < current:
                self.current = ceiling
            case let (current?, ceiling) where layer > current && layer <= (ceiling ?? Int.max) && mark.sync:
                self.current = layer
            case (nil, let ceiling?):
                current = ceiling
            default:
                break
            }
            frameTimestamp = timestamp
        }
        return current.map { layer <= $0 } ?? true
    }

    /// RFC 1982 order of 32-bit RTP timestamps.
    static func isNewer(_ a: UInt32, than b: UInt32) -> Bool { a != b && (a &- b) < 0x8000_0000 }
}
