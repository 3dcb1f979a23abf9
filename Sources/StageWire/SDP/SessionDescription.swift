/// A session description (RFC 8866), as WebRTC offers and answers carry it (JSEP, RFC 8829).
///
/// The session-level lines (from `v=` up to the first `m=`) are kept verbatim in ``lines``, and
/// each media section in ``media``; typed views (``origin``, ``iceUfrag``, ``candidates``,
/// ``MediaDescription/rtpMaps``, …) parse lines on demand. Lines the module does not know are
/// never lost: ``serialized()`` writes back what was parsed, with CRLF line endings.
///
/// ```swift
/// let offer = try SessionDescription(parsing: sdpText)
/// for section in offer.media { print(section.mid, section.rids, section.simulcast) }
/// ```
public struct SessionDescription: SDPAttributeContainer, Hashable, Sendable, CustomStringConvertible {
    /// The session-level lines, `v=` first.
    public var lines: [SDPLine]
    /// The media sections in order.
    public var media: [MediaDescription]

    /// Parsing rejects descriptions larger than this many bytes (32 KiB).
    public static let maximumBytes = 32 * 1024
    /// Parsing rejects descriptions with more lines than this.
    public static let maximumLines = 1000
    /// Parsing rejects any line longer than this many bytes, line ending excluded (4 KiB).
    public static let maximumLineBytes = 4 * 1024

    public init(lines: [SDPLine], media: [MediaDescription] = []) {
        self.lines = lines
        self.media = media
    }

    /// A minimal JSEP session level (RFC 8829 §5.2.1): `v=0`, `o=`, `s=-`, `t=0 0`.
    public init(origin: SDPOrigin, media: [MediaDescription] = []) {
        self.init(
            lines: [
                SDPLine(type: "v", value: "0"),
                SDPLine(type: "o", value: origin.sdpValue),
                SDPLine(type: "s", value: "-"),
                SDPLine(type: "t", value: SDPTiming().sdpValue),
            ],
            media: media)
    }

    /// `o=` (RFC 8866 §5.2).
    public var origin: SDPOrigin? {
        lines.first { $0.type == "o" }.flatMap { try? SDPOrigin(sdpValue: $0.value[...]) }
    }

    /// `s=` (RFC 8866 §5.3); JSEP writes `-`.
    public var sessionName: String? { lines.first { $0.type == "s" }?.value }

    /// `t=` (RFC 8866 §5.9).
    public var timing: SDPTiming? {
        lines.first { $0.type == "t" }.flatMap { try? SDPTiming(sdpValue: $0.value[...]) }
    }

    /// The media section whose `a=mid` is `mid`.
    public func media(mid: String) -> MediaDescription? { media.first { $0.mid == mid } }

    /// Every line in order, `m=` lines included.
    public var allLines: [SDPLine] { lines + media.flatMap(\.allLines) }

    /// The description as text: every line followed by CRLF (RFC 8866 §5).
    public func serialized() -> String {
        var text = ""
        for line in allLines {
            text += line.description
            text += "\r\n"
        }
        return text
    }

    public var description: String { serialized() }
}
