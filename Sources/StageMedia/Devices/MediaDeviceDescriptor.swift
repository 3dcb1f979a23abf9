/// What kind of media a device captures (IVS `IVSDeviceType`, without the image and custom kinds).
public enum MediaDeviceType: String, Sendable, Hashable, CustomStringConvertible {
    case camera, microphone
    public var description: String { rawValue }
}

/// Where a device sits (IVS `IVSDevicePosition`).
public enum MediaDevicePosition: String, Sendable, Hashable {
    case unknown, front, back, usb, bluetooth, auxiliary
}

/// A capture device as ``MediaDeviceDiscovery`` lists it: the media-level counterpart of the IVS
/// SDK's `IVSDeviceDescriptor`. StageKit's `DeviceDescriptor` names a published stream's device;
/// this one says where the samples come from.
public struct MediaDeviceDescriptor: Sendable, Hashable {
    /// What produces the samples.
    public enum Origin: Sendable, Hashable {
        /// Generated: ``SyntheticCamera`` or ``SyntheticMicrophone``.
        case synthetic
        /// Read from a YUV4MPEG2 or WAV file at this path.
        case file(path: String)
    }

    /// Stable id: "test", "tone", or "file:" and the path.
    public var deviceId: String
    public var friendlyName: String
    public var type: MediaDeviceType
    public var position: MediaDevicePosition
    /// Whether this is the device to use when none is chosen.
    public var isDefault: Bool
    public var origin: Origin

    public init(
        deviceId: String, friendlyName: String, type: MediaDeviceType, position: MediaDevicePosition = .unknown,
        isDefault: Bool = false, origin: Origin
    ) {
        self.deviceId = deviceId
        self.friendlyName = friendlyName
        self.type = type
        self.position = position
        self.isDefault = isDefault
        self.origin = origin
    }

    /// The synthetic camera: colour bars, a moving box and a ``FrameStamp``.
    public static let testCamera = MediaDeviceDescriptor(
        deviceId: "test", friendlyName: "Test pattern", type: .camera, position: .front, isDefault: true, origin: .synthetic)
    /// The synthetic microphone: a 440 Hz tone.
    public static let toneMicrophone = MediaDeviceDescriptor(
        deviceId: "tone", friendlyName: "Tone (440 Hz)", type: .microphone, isDefault: true, origin: .synthetic)
}
