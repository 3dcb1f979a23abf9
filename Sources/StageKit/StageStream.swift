import StageProtocol

/// Identifies a device: its id (the published stream's id), kind and name, and where its
/// media comes from. A descriptor without a source publishes the stream's description only.
public struct DeviceDescriptor: Sendable, Hashable {
    public var deviceId: String
    public var kind: MediaKind
    public var friendlyName: String
    public var source: DeviceSource?

    public init(deviceId: String, kind: MediaKind, friendlyName: String? = nil, source: DeviceSource? = nil) {
        self.deviceId = deviceId
        self.kind = kind
        self.friendlyName = friendlyName ?? deviceId
        self.source = source
    }
}

/// A stream on the stage (IVS `IVSStageStream`): a remote participant's, or a local one.
@MainActor
public class StageStream: Hashable {
    public let streamId: String
    public let kind: MediaKind
    /// Whether the publisher muted it.
    public internal(set) var isMuted: Bool
    /// The stream's device: an `ImageDevice` for video, an `AudioDevice` for audio. A received
    /// stream's device delivers what was decoded; a local one's, what was captured.
    public let device: any StageDevice
    /// Receives `requestRTCStats()` answers.
    public weak var delegate: (any StageStreamDelegate)?
    /// Where `requestRTCStats()` gets its figures: set while media flows.
    var statsProvider: (@Sendable () async -> [RTCStats])?

    init(streamId: String, kind: MediaKind, isMuted: Bool, device: (any StageDevice)? = nil) {
        self.streamId = streamId
        self.kind = kind
        self.isMuted = isMuted
        self.device = device ?? makeDevice(for: DeviceDescriptor(deviceId: streamId, kind: kind))
    }

    /// Gathers WebRTC-shaped statistics of this stream's media and hands them to `delegate`
    /// (`stageStream(_:didGenerateRTCStats:)`) on the main actor. Nothing is delivered when no
    /// media flows for it.
    public func requestRTCStats() {
        guard let statsProvider else { return }
        Task { @MainActor [weak self] in
            let stats = await statsProvider()
            guard let self else { return }
            self.delegate?.stageStream(self, didGenerateRTCStats: stats)
        }
    }

    /// The same statistics, returned: empty when no media flows for this stream.
    public func rtcStats() async -> [RTCStats] {
        await statsProvider?() ?? []
    }

    var descriptor: StreamDescriptor { StreamDescriptor(streamId: streamId, kind: kind, muted: isMuted) }

    nonisolated public static func == (lhs: StageStream, rhs: StageStream) -> Bool { lhs === rhs }
    nonisolated public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// A stream the local participant may publish (IVS `IVSLocalStageStream`).
/// `setMuted` works before and after the stream is returned by the strategy; a new instance
/// returned after `refreshStrategy()` applies its own mute state.
@MainActor
public final class LocalStageStream: StageStream {
    public let configuration: LocalStageStreamConfiguration
    /// Set while the stream is published on a stage, to forward mute changes.
    weak var stage: Stage?

    /// - Parameter device: the capture device; with a `source`, its media is encoded and sent
    ///   when the strategy publishes the stream.
    public init(device: DeviceDescriptor, configuration: LocalStageStreamConfiguration = LocalStageStreamConfiguration(),
                muted: Bool = false) {
        self.configuration = configuration
        super.init(streamId: device.deviceId, kind: device.kind, isMuted: muted, device: makeDevice(for: device))
    }

    public func setMuted(_ muted: Bool) {
        guard muted != isMuted else { return }
        isMuted = muted
        stage?.localStreamMuteChanged(self)
    }
}
