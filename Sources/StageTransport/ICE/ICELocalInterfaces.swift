import NIOCore
import NIOPosix
import StageWire

/// The addresses host candidates are gathered on (RFC 8445 §5.1.1.1): every interface address
/// except IPv6 link-local ones (unusable without a scope) and the unspecified address. Loopback
/// is kept: the check list pairs it only with a loopback server.
enum ICELocalInterfaces {
    static func usableAddresses() -> [IPAddress] {
        let devices = (try? System.enumerateDevices()) ?? []
        var seen = Set<IPAddress>()
        var addresses: [IPAddress] = []
        for device in devices {
            guard let address = device.address, let ip = STUNAddress(address)?.ip, !ip.isLinkLocal,
                  ip != .v4(0), ip != .v6(high: 0, low: 0), seen.insert(ip).inserted else { continue }
            addresses.append(ip)
        }
        return addresses
    }

    /// RFC 8421 §4: IPv6 before IPv4, then interface order; all above any TCP candidate's
    /// local preference (at most 6 × 2^13 + 2^13 − 1, RFC 6544 §4.2).
    static func localPreference(of address: IPAddress, among addresses: [IPAddress]) -> UInt16 {
        let index = UInt16(min(addresses.firstIndex(of: address) ?? 63, 63))
        return address.isIPv4 ? 65535 - 64 - index : 65535 - index
    }
}
