#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call on a media file: which file, which operation, and the `errno` text.
public struct MediaFileIOError: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    /// "open", "read", "write", "stat" or "close".
    public var operation: String
    public var errno: Int32

    public init(path: String, operation: String, errno: Int32) {
        self.path = path
        self.operation = operation
        self.errno = errno
    }

    public var description: String {
        "cannot \(operation) \(path): \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

/// Where a reader's bytes come from: memory (tests, fuzzing) or a file read with `pread`.
///
/// Readers keep their own offset and read at it, so copies of a reader are independent and
/// share only the immutable file descriptor.
enum MediaFileBytes: Sendable {
    case memory([UInt8])
    case file(MediaFileInput)

    var count: Int64 {
        switch self {
        case .memory(let bytes): Int64(bytes.count)
        case .file(let file): file.size
        }
    }

    /// Up to `count` bytes at `offset`; fewer only at the end of the data.
    func read(at offset: Int64, count: Int) throws(MediaFileIOError) -> [UInt8] {
        guard offset >= 0, count > 0, offset < self.count else { return [] }
        let available = Int(min(Int64(count), self.count - offset))
        switch self {
        case .memory(let bytes):
            let start = Int(offset)
            return Array(bytes[start..<(start + available)])
        case .file(let file):
            return try file.read(at: offset, count: available)
        }
    }
}

/// A file opened read-only; its size is taken once, at open.
final class MediaFileInput: Sendable {
    let path: String
    let descriptor: Int32
    let size: Int64

    init(path: String) throws(MediaFileIOError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw MediaFileIOError(path: path, operation: "open", errno: errno) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            _ = mediaFileClose(fd)
            throw MediaFileIOError(path: path, operation: "stat", errno: code)
        }
        self.path = path
        self.descriptor = fd
        self.size = Int64(info.st_size)
    }

    deinit { _ = mediaFileClose(descriptor) }

    /// Exactly `count` bytes at `offset` unless the file ends first.
    func read(at offset: Int64, count: Int) throws(MediaFileIOError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        var failure: Int32 = 0
        bytes.withUnsafeMutableBytes { buffer in
            while filled < count {
                let result = pread(descriptor, buffer.baseAddress! + filled, count - filled, off_t(offset + Int64(filled)))
                if result > 0 {
                    filled += result
                } else if result == 0 {
                    break
                } else if errno != EINTR {
                    failure = errno
                    break
                }
            }
        }
        if failure != 0 { throw MediaFileIOError(path: path, operation: "read", errno: failure) }
        if filled < count { bytes.removeLast(count - filled) }
        return bytes
    }
}

/// A file created (or truncated) for writing: appends, and overwrites at an offset to patch
/// headers. Used by one writer at a time.
final class MediaFileOutput {
    let path: String
    private var descriptor: Int32
    /// Bytes appended so far: the offset of the next append.
    private(set) var size: Int64 = 0

    init(path: String) throws(MediaFileIOError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw MediaFileIOError(path: path, operation: "open", errno: errno) }
        self.path = path
        self.descriptor = fd
    }

    deinit { if descriptor >= 0 { _ = mediaFileClose(descriptor) } }

    var isOpen: Bool { descriptor >= 0 }

    func append(_ bytes: [UInt8]) throws(MediaFileIOError) {
        try overwrite(bytes, at: size)
        size += Int64(bytes.count)
    }

    func overwrite(_ bytes: [UInt8], at offset: Int64) throws(MediaFileIOError) {
        var written = 0
        var failure: Int32 = 0
        bytes.withUnsafeBytes { buffer in
            while written < buffer.count {
                let result = pwrite(descriptor, buffer.baseAddress! + written, buffer.count - written, off_t(offset + Int64(written)))
                if result >= 0 {
                    written += result
                } else if errno != EINTR {
                    failure = errno
                    break
                }
            }
        }
        if failure != 0 { throw MediaFileIOError(path: path, operation: "write", errno: failure) }
    }

    func close() throws(MediaFileIOError) {
        guard descriptor >= 0 else { return }
        let fd = descriptor
        descriptor = -1
        if mediaFileClose(fd) != 0 { throw MediaFileIOError(path: path, operation: "close", errno: errno) }
    }
}

/// `close(2)`, named so that types with a `close()` method can call it.
private func mediaFileClose(_ descriptor: Int32) -> Int32 { close(descriptor) }

/// Little-endian integer reads and writes for the RIFF, IVF and Ogg layouts.
enum MediaFileLE {
    static func uint16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
        UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    static func uint32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }

    static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        var little = value.littleEndian
        withUnsafeBytes(of: &little) { bytes.append(contentsOf: $0) }
    }

    static func bytes<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        var result: [UInt8] = []
        append(value, to: &result)
        return result
    }
}
