import Foundation
import Logging
import NIOCore
import StageTransport

extension StageServerApp {
    /// The media port, bound as the configuration says, and the candidates answers advertise.
    struct MediaPlane {
        var engine: MediaEngine
        var candidates: HostCandidates
    }

    /// Binds UDP (IPv4 and IPv6 for a wildcard host), then ICE-TCP unless it is off, and logs
    /// what is advertised: each transport's candidates name only addresses of the families it
    /// has a socket for.
    /// - Parameter advertised: the candidate addresses, already validated.
    /// - Throws: `ServerConfigurationError` when a port cannot be bound, or when no advertised
    ///   address is of a family the UDP port serves (e.g. only IPv6 `--public-ip` values on a
    ///   machine without IPv6).
    static func startMedia(_ configuration: ServerConfiguration, advertised: [String], log: Logger) async throws -> MediaPlane {
        let engine: MediaEngine
        do {
            engine = try await MediaEngine.start(host: configuration.host, port: configuration.mediaPort)
        } catch {
            throw unbindable("--media-port", configuration.mediaPort, error)
        }
        let tcpPort = configuration.mediaTCPPort ?? ServerConfiguration.defaultMediaTCPPort
        if tcpPort != 0 {
            do {
                try await engine.startTCP(host: configuration.host, port: tcpPort, limits: configuration.iceTCPLimits)
            } catch where configuration.mediaTCPPort == nil {
                // The default port taken (another server on this machine): serve UDP alone rather than not at all.
                log.warning("ICE-TCP is off: the default --media-tcp-port \(tcpPort) cannot be bound; give another port, or 0 to turn it off",
                            metadata: ["error": "\(error)"])
            } catch {
                await engine.close()
                throw unbindable("--media-tcp-port", tcpPort, error)
            }
        }
        let udpAdvertised = AdvertisedAddresses.served(advertised, by: engine.udpAddresses.compactMap(\.ipAddress))
        let tcpAdvertised = AdvertisedAddresses.served(advertised, by: engine.tcpAddresses.compactMap(\.ipAddress))
        guard !udpAdvertised.isEmpty else {
            await engine.close()
            throw ServerConfigurationError(code: "no_served_address", flag: configuration.publicIPs.isEmpty ? "--host" : "--public-ip",
                                           value: advertised.joined(separator: ","),
                                           reason: "no advertised address is of a family the media port serves (\(engine.udpAddresses.map(describe).joined(separator: ", ")))")
        }
        let unserved = advertised.filter { !udpAdvertised.contains($0) }
        if !unserved.isEmpty {
            log.warning("not advertised: no media socket of their family", metadata: ["addresses": "\(unserved.joined(separator: ", "))"])
        }
        let candidates = HostCandidates(udpAddresses: udpAdvertised, udpPort: engine.localPort, tcpAddresses: tcpAdvertised, tcpPort: engine.tcpPort)
        log.info("media listening", metadata: [
            "udp": "\(engine.udpAddresses.map(describe).joined(separator: ", "))",
            "tcp": "\(engine.tcpAddresses.isEmpty ? "off" : engine.tcpAddresses.map(describe).joined(separator: ", "))",
            "advertised": "\(udpAdvertised.joined(separator: ", "))",
        ])
        return MediaPlane(engine: engine, candidates: candidates)
    }

    /// The address HTTP binds: for a wildcard host `::` when the system makes it dual-stack, so
    /// IPv6-only and IPv4 clients both reach it; `0.0.0.0` when IPv6 is unavailable (or sockets
    /// on `::` are IPv6-only here, `net.ipv6.bindv6only=1`).
    static func httpBindHost(_ configuration: ServerConfiguration, log: Logger) -> String {
        guard MediaEngine.isWildcard(configuration.host) else { return configuration.host }
        if IPv6Support.isAvailable && IPv6Support.isDualStackByDefault { return "::" }
        log.notice("HTTP serves IPv4 only", metadata: ["reason": "\(IPv6Support.isAvailable ? "IPv6 sockets are IPv6-only (net.ipv6.bindv6only=1)" : "IPv6 unavailable")"])
        return "0.0.0.0"
    }

    private static func unbindable(_ flag: String, _ port: Int, _ error: any Error) -> ServerConfigurationError {
        ServerConfigurationError(code: "port_unavailable", flag: flag, value: "\(port)", reason: "cannot be bound: \(error)")
    }

    private static func describe(_ address: SocketAddress) -> String {
        guard let ip = address.ipAddress, let port = address.port else { return "\(address)" }
        return ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)"
    }
}
