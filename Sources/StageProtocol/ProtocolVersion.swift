/// The signaling protocol version. Messages carry the major version in `v`; a server answers a
/// join whose major version it does not speak with `unsupportedVersion`.
/// Minor versions only add optional fields, which readers ignore when unknown.
public enum ProtocolVersion {
    public static let major = 1
    public static let minor = 0
    /// The largest signaling text frame either side sends or accepts, in bytes.
    public static let maxMessageBytes = 64 * 1024
}
