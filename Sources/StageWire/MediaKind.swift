/// What a track carries: audio or video. The `m=` line's media type of an SDP media section
/// (RFC 8866 §5.14), a WebRTC track's `kind`, and a stream's `kind` in the signaling protocol
/// (Protocol/README.md) are all this one type.
public enum MediaKind: String, Codable, Sendable, Hashable, CaseIterable {
    case audio
    case video
}
