import Foundation
import Logging
import NIOCore
import NIOPosix
import StageTransport

extension StageServerApp {
    /// Starts the media workers: worker n binds the first UDP port plus n (IPv4 and IPv6 for a
    /// wildcard host), then, unless ICE-TCP is off, the first ICE-TCP port plus n, on an event
    /// loop of its own; all share one DTLS certificate. Logs what each advertises: each
    /// transport's candidates name only addresses of the families it has a socket for.
    /// - Parameter advertised: the candidate addresses, already validated.
    /// - Throws: `ServerConfigurationError` when a port cannot be bound, or when no advertised
    ///   address is of a family the UDP port serves (e.g. only IPv6 `--public-ip` values on a
    ///   machine without IPv6). What was bound is closed first.
    static func startMedia(_ configuration: ServerConfiguration, advertised: [String], log: Logger) async throws -> [MediaWorker] {
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: max(configuration.mediaWorkers, 1))
        let dtls = try DTLSContext(certificate: DTLSCertificate())
        var engines: [MediaEngine] = []
        func fail(_ error: any Error) async throws -> Never {
            for engine in engines { await engine.close() }
            try? await loops.shutdownGracefully()
            throw error
        }
        for (index, loop) in loops.makeIterator().enumerated() {
            let port = configuration.mediaPort == 0 ? 0 : configuration.mediaPort + index
            do {
                engines.append(try await MediaEngine.start(host: configuration.host, port: port, group: loop, dtlsContext: dtls,
                                                           threadName: "\(MediaWorker.threadNamePrefix)\(index)"))
            } catch {
                try await fail(unbindable("--media-port", port, index, error))
            }
        }
        let firstTCPPort = configuration.mediaTCPPort ?? ServerConfiguration.defaultMediaTCPPort
        if firstTCPPort != 0 {
            for (index, engine) in engines.enumerated() {
                do {
                    try await engine.startTCP(host: configuration.host, port: firstTCPPort + index, limits: configuration.iceTCPLimits)
                } catch where configuration.mediaTCPPort == nil {
                    // The default ports taken (another server on this machine): serve UDP alone rather than not at all.
                    log.warning("ICE-TCP is off: the default --media-tcp-port \(firstTCPPort) + \(index) cannot be bound; give another port, or 0 to turn it off",
                                metadata: ["error": "\(error)"])
                    for engine in engines { await engine.stopTCP() }
                    break
                } catch {
                    try await fail(unbindable("--media-tcp-port", firstTCPPort + index, index, error))
                }
            }
        }
        var workers: [MediaWorker] = []
        for (index, engine) in engines.enumerated() {
            let udpAdvertised = AdvertisedAddresses.served(advertised, by: engine.udpAddresses.compactMap(\.ipAddress))
            let tcpAdvertised = AdvertisedAddresses.served(advertised, by: engine.tcpAddresses.compactMap(\.ipAddress))
            guard !udpAdvertised.isEmpty else {
                try await fail(ServerConfigurationError(
                    code: "no_served_address", flag: configuration.publicIPs.isEmpty ? "--host" : "--public-ip", value: advertised.joined(separator: ","),
                    reason: "no advertised address is of a family the media port serves (\(engine.udpAddresses.map(describe).joined(separator: ", ")))"))
            }
            let unserved = advertised.filter { !udpAdvertised.contains($0) }
            if !unserved.isEmpty, index == 0 {
                log.warning("not advertised: no media socket of their family", metadata: ["addresses": "\(unserved.joined(separator: ", "))"])
            }
            log.info("media worker listening", metadata: [
                "worker": "\(index)",
                "udp": "\(engine.udpAddresses.map(describe).joined(separator: ", "))",
                "tcp": "\(engine.tcpAddresses.isEmpty ? "off" : engine.tcpAddresses.map(describe).joined(separator: ", "))",
                "advertised": "\(udpAdvertised.joined(separator: ", "))",
            ])
            let candidates = HostCandidates(udpAddresses: udpAdvertised, udpPort: engine.localPort, tcpAddresses: tcpAdvertised, tcpPort: engine.tcpPort)
            workers.append(MediaWorker(index: index, engine: engine, candidates: candidates))
        }
        return workers
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

    private static func unbindable(_ flag: String, _ port: Int, _ worker: Int, _ error: any Error) -> ServerConfigurationError {
        ServerConfigurationError(code: "port_unavailable", flag: flag, value: "\(port)",
                                 reason: "cannot be bound\(worker > 0 ? " (media worker \(worker): the flag's port + \(worker))" : ""): \(error)")
    }

    /// Consecutive ports as a range, "7880–7881"; one as itself.
    static func ports(_ ports: [Int]) -> String {
        guard let first = ports.first, let last = ports.last, first != last else { return ports.first.map(String.init) ?? "none" }
        return ports == Array(first...last) ? "\(first)–\(last)" : ports.map(String.init).joined(separator: ",")
    }

    private static func describe(_ address: SocketAddress) -> String {
        guard let ip = address.ipAddress, let port = address.port else { return "\(address)" }
        return ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)"
    }
}
