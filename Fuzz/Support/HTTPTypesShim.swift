// A stand-in for the one type of swift-http-types that StageServer's APIError.swift uses
// (HTTPResponse.Status), so scripts/fuzz.sh can compile the control-plane request readers with swiftc alone.
public struct HTTPResponse: Sendable {
    public struct Status: Sendable, Hashable {
        public var code: Int
        public init(code: Int) { self.code = code }
        public static let badRequest = Status(code: 400)
        public static let forbidden = Status(code: 403)
        public static let notFound = Status(code: 404)
        public static let conflict = Status(code: 409)
        public static let internalServerError = Status(code: 500)
    }
}
