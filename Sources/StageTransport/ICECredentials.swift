/// Local ICE credentials of one peer connection (RFC 8445 §5.3, RFC 8839 §5.4):
/// `ice-ufrag` of 8 and `ice-pwd` of 24 characters from the ice-char set.
public struct ICECredentials: Hashable, Sendable {
    public let ufrag: String
    public let password: String

    static let iceChars = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/")

    public init(ufrag: String, password: String) {
        self.ufrag = ufrag
        self.password = password
    }

    public static func random() -> ICECredentials {
        var generator = SystemRandomNumberGenerator()
        func draw(_ count: Int) -> String {
            String((0..<count).map { _ in iceChars.randomElement(using: &generator) ?? "a" })
        }
        return ICECredentials(ufrag: draw(8), password: draw(24))
    }
}
