public import StageProtocol

/// Identifies a capture device. Media devices (cameras, microphones, files) arrive with the
/// media plane; until then a stream is described by its device's id and kind.
public struct DeviceDescriptor: Sendable, Hashable {
    public var deviceId: String
    public var kind: StreamKind
    public var friendlyName: String

    public init(deviceId: String, kind: StreamKind, friendlyName: String? = nil) {
        self.deviceId = deviceId
        self.kind = kind
        self.friendlyName = friendlyName ?? deviceId
    }
}

/// A stream on the stage (IVS `IVSStageStream`): a remote participant's, or a local one.
@MainActor
public class StageStream: Hashable {
    public let streamId: String
    public let kind: StreamKind
    /// Whether the publisher muted it.
    public internal(set) var isMuted: Bool

    init(streamId: String, kind: StreamKind, isMuted: Bool) {
        self.streamId = streamId
        self.kind = kind
        self.isMuted = isMuted
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
    public let device: DeviceDescriptor
    /// Set while the stream is published on a stage, to forward mute changes.
    weak var stage: Stage?

    public init(device: DeviceDescriptor, muted: Bool = false) {
        self.device = device
        super.init(streamId: device.deviceId, kind: device.kind, isMuted: muted)
    }

    public func setMuted(_ muted: Bool) {
        guard muted != isMuted else { return }
        isMuted = muted
        stage?.localStreamMuteChanged(self)
    }
}
