/// The TURN methods of RFC 8656 §17 and their message types (§3.1: requests and responses for
/// Allocate, Refresh, CreatePermission and ChannelBind; indications only for Send and Data).
extension STUNMethod {
    /// Allocate (0x003, RFC 8656 §7): creates the allocation; a request only.
    public static let allocate = STUNMethod(rawValue: 0x003)
    /// Refresh (0x004, §8): extends or, with LIFETIME 0, deletes the allocation.
    public static let refresh = STUNMethod(rawValue: 0x004)
    /// Send (0x006, §11.1): client to server, data for a peer; an indication only.
    public static let send = STUNMethod(rawValue: 0x006)
    /// Data (0x007, §11.3): server to client, data from a peer; an indication only.
    public static let data = STUNMethod(rawValue: 0x007)
    /// CreatePermission (0x008, §10): installs or refreshes permissions for peer IP addresses.
    public static let createPermission = STUNMethod(rawValue: 0x008)
    /// ChannelBind (0x009, §12.1): binds a channel number to a peer transport address.
    public static let channelBind = STUNMethod(rawValue: 0x009)

    /// The methods RFC 8656 §17 registers.
    public static let turnMethods: [STUNMethod] = [.allocate, .refresh, .send, .data, .createPermission, .channelBind]

    /// The method's name as the RFCs write it, or `nil` for a method this module does not name.
    var name: String? {
        switch self {
        case .binding: "Binding"
        case .allocate: "Allocate"
        case .refresh: "Refresh"
        case .send: "Send"
        case .data: "Data"
        case .createPermission: "CreatePermission"
        case .channelBind: "ChannelBind"
        default: nil
        }
    }
}

extension STUNMessageType {
    /// Allocate request (0x0003, RFC 8656 §7.1).
    public static let allocateRequest = STUNMessageType(method: .allocate, messageClass: .request)
    /// Allocate success response (0x0103, §7.3).
    public static let allocateSuccess = STUNMessageType(method: .allocate, messageClass: .successResponse)
    /// Allocate error response (0x0113, §7.3).
    public static let allocateError = STUNMessageType(method: .allocate, messageClass: .errorResponse)
    /// Refresh request (0x0004, §8.1).
    public static let refreshRequest = STUNMessageType(method: .refresh, messageClass: .request)
    /// Refresh success response (0x0104, §8.3).
    public static let refreshSuccess = STUNMessageType(method: .refresh, messageClass: .successResponse)
    /// Refresh error response (0x0114, §8.3).
    public static let refreshError = STUNMessageType(method: .refresh, messageClass: .errorResponse)
    /// Send indication (0x0016, §11.1).
    public static let sendIndication = STUNMessageType(method: .send, messageClass: .indication)
    /// Data indication (0x0017, §11.3).
    public static let dataIndication = STUNMessageType(method: .data, messageClass: .indication)
    /// CreatePermission request (0x0008, §10.1).
    public static let createPermissionRequest = STUNMessageType(method: .createPermission, messageClass: .request)
    /// CreatePermission success response (0x0108, §10.3).
    public static let createPermissionSuccess = STUNMessageType(method: .createPermission, messageClass: .successResponse)
    /// CreatePermission error response (0x0118, §10.3).
    public static let createPermissionError = STUNMessageType(method: .createPermission, messageClass: .errorResponse)
    /// ChannelBind request (0x0009, §12.1).
    public static let channelBindRequest = STUNMessageType(method: .channelBind, messageClass: .request)
    /// ChannelBind success response (0x0109, §12.3).
    public static let channelBindSuccess = STUNMessageType(method: .channelBind, messageClass: .successResponse)
    /// ChannelBind error response (0x0119, §12.3).
    public static let channelBindError = STUNMessageType(method: .channelBind, messageClass: .errorResponse)
}
