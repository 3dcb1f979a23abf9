/// Why a media file writer refused a call.
public enum MediaWriterError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A system call on the output file failed.
    case io(MediaFileIOError)
    /// A write after ``IVFWriter/close()`` (or the other writers' `close()`).
    case closed(path: String)
    /// An argument outside what the format can hold; `rule` says what it allows.
    case invalidArgument(name: String, value: String, rule: String)
    /// An Opus packet whose TOC byte (RFC 6716 §3.1) does not give a valid duration.
    case invalidOpusPacket(reason: String)

    public var description: String {
        switch self {
        case .io(let error): "\(error)"
        case .closed(let path): "\(path) is already closed"
        case .invalidArgument(let name, let value, let rule): "\(name) \(value) is invalid: \(rule)"
        case .invalidOpusPacket(let reason): "invalid Opus packet: \(reason) (RFC 6716 §3)"
        }
    }
}
