#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A plain POSIX socket on 127.0.0.1 for tests that talk to real peers (coturn): UDP bound to
/// an ephemeral port, or TCP connected to a port. Every receive is bounded by a timeout.
final class TestSocket {
    let fd: Int32
    let isTCP: Bool

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private init(fd: Int32, isTCP: Bool) {
        self.fd = fd
        self.isTCP = isTCP
    }

    deinit { Glibc.close(fd) }

    static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    /// A UDP socket bound to 127.0.0.1 on an ephemeral port.
    static func udp() throws -> TestSocket {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket(UDP): errno \(errno)") }
        let socket = TestSocket(fd: fd, isTCP: false)
        var address = loopback(port: 0)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { throw Failure(description: "bind(UDP): errno \(errno)") }
        return socket
    }

    /// A TCP socket connected to 127.0.0.1:`port`.
    static func tcp(connectingTo port: UInt16) throws -> TestSocket {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket(TCP): errno \(errno)") }
        let socket = TestSocket(fd: fd, isTCP: true)
        var address = loopback(port: port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { throw Failure(description: "connect(TCP 127.0.0.1:\(port)): errno \(errno)") }
        return socket
    }

    /// The bound port.
    var localPort: UInt16 {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Sends a datagram to 127.0.0.1:`port` (UDP) or bytes on the stream (TCP, `port` ignored).
    func send(_ bytes: [UInt8], to port: UInt16 = 0) throws {
        let sent: Int = bytes.withUnsafeBytes { buffer in
            if isTCP { return Glibc.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
            var address = Self.loopback(port: port)
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, buffer.baseAddress, buffer.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard sent == bytes.count else { throw Failure(description: "send: \(sent) of \(bytes.count), errno \(errno)") }
    }

    /// One datagram or one read, with the sender's port (UDP), or nil after `timeoutMilliseconds`.
    func receive(timeoutMilliseconds: Int32) throws -> (bytes: [UInt8], port: UInt16)? {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, timeoutMilliseconds)
        guard ready > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let count = buffer.withUnsafeMutableBytes { raw in
            withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, raw.baseAddress, raw.count, 0, $0, &length) }
            }
        }
        guard count > 0 else { throw Failure(description: "recv: \(count), errno \(errno) (peer closed?)") }
        return (Array(buffer.prefix(count)), UInt16(bigEndian: address.sin_port))
    }

    /// A port free for both UDP and TCP on 127.0.0.1 right now (the kernel's pick).
    static func freePort() throws -> UInt16 {
        for _ in 0..<20 {
            let udp = try TestSocket.udp()
            let port = udp.localPort
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = loopback(port: port)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            Glibc.close(fd)
            if bound == 0 { return port }
        }
        throw Failure(description: "no port free for both UDP and TCP")
    }
}
