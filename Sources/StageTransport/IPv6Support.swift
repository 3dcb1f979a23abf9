#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore

/// Whether this machine can serve IPv6, asked of the kernel once: the media port and the HTTP
/// listener bind IPv6 beside IPv4 when they can, and carry on with IPv4 alone when not.
public enum IPv6Support {
    /// An IPv6 socket can be created and bound to `[::]:0`.
    public static let isAvailable: Bool = probe { _ in true } ?? false

    /// A socket bound to `[::]` also accepts IPv4 (as v4-mapped addresses) unless told
    /// `IPV6_V6ONLY`: true when the system default (`net.ipv6.bindv6only`) leaves it dual-stack.
    public static let isDualStackByDefault: Bool = probe { fd in
        var value: Int32 = 1
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &value, &length) == 0 && value == 0
    } ?? false

    /// Whether a bind error means the machine has no IPv6 (no such address family, or no
    /// usable IPv6 address), as opposed to a port conflict or a permission problem.
    public static func isUnavailable(_ error: any Error) -> Bool {
        guard let error = error as? IOError else { return false }
        return [EAFNOSUPPORT, EADDRNOTAVAIL, EPROTONOSUPPORT, ENETUNREACH].contains(error.errnoCode)
    }

    private static func probe(_ check: (Int32) -> Bool) -> Bool? {
        #if canImport(Glibc)
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET6, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_any
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0 }
        }
        return bound ? check(fd) : nil
    }
}
