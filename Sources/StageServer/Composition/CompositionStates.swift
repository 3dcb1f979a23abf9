import Foundation

/// A composition's state, with the raw values of the `ivs-realtime` model's CompositionState.
/// STARTING → ACTIVE → STOPPING → STOPPED, or FAILED from any of the first three.
enum CompositionState: String, Codable, Sendable, CaseIterable {
    case starting = "STARTING"
    case active = "ACTIVE"
    case stopping = "STOPPING"
    case failed = "FAILED"
    case stopped = "STOPPED"

    /// STOPPED and FAILED: nothing changes a composition after it.
    var isTerminal: Bool { self == .stopped || self == .failed }

    /// STARTING, ACTIVE and STOPPING: the composition still holds its channel and configurations.
    static let live: [CompositionState] = [.starting, .active, .stopping]
}

/// A destination's state, with the raw values of the model's DestinationState.
enum DestinationState: String, Codable, Sendable, CaseIterable {
    case starting = "STARTING"
    case active = "ACTIVE"
    case stopping = "STOPPING"
    case reconnecting = "RECONNECTING"
    case failed = "FAILED"
    case stopped = "STOPPED"

    var isTerminal: Bool { self == .stopped || self == .failed }
}
