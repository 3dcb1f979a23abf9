import HTTPTypes

/// An IVS API error: its type goes in `x-amzn-ErrorType`, its message names the field and the rule.
struct APIError: Error, Hashable {
    enum Kind: String, Sendable {
        case validation = "ValidationException"
        case notFound = "ResourceNotFoundException"
        case accessDenied = "AccessDeniedException"
        case conflict = "ConflictException"
        case quotaExceeded = "ServiceQuotaExceededException"
        case internalError = "InternalServerException"
        /// `ivs` GetStream on a channel that is not live (404 in the model).
        case channelNotBroadcasting = "ChannelNotBroadcasting"

        var status: HTTPResponse.Status {
            switch self {
            case .validation: .badRequest
            case .notFound, .channelNotBroadcasting: .notFound
            case .accessDenied: .forbidden
            case .conflict: .conflict
            case .quotaExceeded: .init(code: 402)
            case .internalError: .internalServerError
            }
        }
    }

    var kind: Kind
    var message: String

    static func validation(_ message: String) -> APIError { .init(kind: .validation, message: message) }
    static func notFound(_ message: String) -> APIError { .init(kind: .notFound, message: message) }
    static func accessDenied(_ message: String) -> APIError { .init(kind: .accessDenied, message: message) }
    static func conflict(_ message: String) -> APIError { .init(kind: .conflict, message: message) }
    static func quotaExceeded(_ message: String) -> APIError { .init(kind: .quotaExceeded, message: message) }
}
