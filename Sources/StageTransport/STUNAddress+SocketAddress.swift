import NIOCore
import StageWire

extension STUNAddress {
    /// The STUN form of a socket address (nil for Unix sockets).
    init?(_ address: SocketAddress) {
        guard let port = address.port else { return nil }
        switch address {
        case .v4(let v4):
            self.init(ip: .v4(UInt32(bigEndian: v4.address.sin_addr.s_addr)), port: UInt16(port))
        case .v6(let v6):
            var storage = v6.address.sin6_addr
            let bytes = withUnsafeBytes(of: &storage) { Array($0) }
            guard let ip = IPAddress(bytes: bytes) else { return nil }
            self.init(ip: ip, port: UInt16(port))
        default:
            return nil
        }
    }
}

extension SocketAddress {
    /// The socket form of a STUN transport address.
    init(_ address: STUNAddress) throws {
        self = try SocketAddress(ipAddress: address.ip.description, port: Int(address.port))
    }
}
