/// One simulcast encoding, as in an `RTCRtpEncodingParameters` (`rid`, `scaleResolutionDownBy`,
/// `maxBitrate`) and the SDP `a=rid` / `a=simulcast` lines of RFC 8851 / RFC 8853.
public struct SimulcastLayer: Sendable, Equatable, Hashable {
    /// RTP stream id (RFC 8852), e.g. `"q"`, `"h"`, `"f"`.
    public var rid: String
    /// Integer downscale of the source in both dimensions (1 = full size).
    public var scaleDownBy: Int
    /// Bitrate the layer gets when bandwidth allows.
    public var maxBitrateBps: Int
    /// Below this the allocator pauses the layer (except the lowest, which always runs).
    public var minBitrateBps: Int

    /// - Parameter minBitrateBps: defaults to a quarter of `maxBitrateBps` (WebRTC's table has
    ///   roughly that ratio, e.g. 30/150 kbps at 320×180, 150/500 at 640×360).
    public init(rid: String, scaleDownBy: Int, maxBitrateBps: Int, minBitrateBps: Int? = nil) {
        precondition(scaleDownBy >= 1, "scaleDownBy is at least 1")
        precondition(maxBitrateBps >= 1000, "a layer needs at least 1 kbps")
        self.rid = rid
        self.scaleDownBy = scaleDownBy
        self.maxBitrateBps = maxBitrateBps
        self.minBitrateBps = min(maxBitrateBps, max(1000, minBitrateBps ?? maxBitrateBps / 4))
    }

    /// The picture size this layer encodes for a given source size.
    public func size(sourceWidth: Int, sourceHeight: Int) -> (width: Int, height: Int) {
        VideoScaler.scaledSize(width: sourceWidth, height: sourceHeight, downBy: scaleDownBy)
    }

    /// WebRTC-like defaults, lowest resolution first: `q` (¼), `h` (½), `f` (full).
    ///
    /// Like WebRTC's simulcast table (`kSimulcastFormats`), small sources get fewer layers:
    /// 3 layers from 960×540 up, 2 from 480×270 (so 640×360 → `h`, `f`), else only `f`.
    /// Each layer's maximum bitrate follows its own resolution (see `defaultMaxBitrate`),
    /// e.g. 1280×720 → q 150 kbps, h 500 kbps, f 1.7 Mbps.
    public static func defaults(for width: Int, height: Int) -> [SimulcastLayer] {
        let pixels = width * height
        let count = pixels >= 960 * 540 ? 3 : pixels >= 480 * 270 ? 2 : 1
        let all: [(rid: String, scale: Int)] = [("q", 4), ("h", 2), ("f", 1)]
        return all.suffix(count).map { rid, scale in
            let size = VideoScaler.scaledSize(width: width, height: height, downBy: scale)
            return SimulcastLayer(rid: rid, scaleDownBy: scale,
                                  maxBitrateBps: defaultMaxBitrate(width: size.width, height: size.height))
        }
    }

    /// A VP8 bitrate ceiling for realtime video of this size at 30 fps.
    public static func defaultMaxBitrate(width: Int, height: Int) -> Int {
        let pixels = width * height
        switch pixels {
        case (1920 * 1080)...: return 3_000_000
        case (1280 * 720)...: return 1_700_000
        case (960 * 540)...: return 1_000_000
        case (640 * 360)...: return 500_000
        case (480 * 270)...: return 300_000
        case (320 * 180)...: return 150_000
        default: return 100_000
        }
    }
}
