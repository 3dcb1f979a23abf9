#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOEmbedded
import Synchronization
import Testing
@testable import StageTransport

/// The one bind loop of the UDP sockets and the ICE-TCP listeners (`MediaEngine.bindEvery`),
/// with a fake bind: what it keeps, closes, retries and reports.
struct MediaEngineBindTests {
    struct FakeSocket: Equatable {
        var address: SocketAddress
    }

    /// Binds as told by `outcome` (nil: success on the port asked for, or `nextPort` for 0),
    /// recording every bind and close.
    final class FakeNetwork: @unchecked Sendable {
        var binds: [SocketAddress] = []
        var closed: [SocketAddress] = []
        var nextPort = 5000
        let outcome: (_ address: SocketAddress, _ attempt: Int) -> (any Error)?

        init(outcome: @escaping (_ address: SocketAddress, _ attempt: Int) -> (any Error)?) { self.outcome = outcome }

        func bind(_ address: SocketAddress) throws -> FakeSocket {
            binds.append(address)
            if let error = outcome(address, binds.count) { throw error }
            var bound = address
            if bound.port == 0 {
                bound.port = nextPort
                nextPort += 1
            }
            return FakeSocket(address: bound)
        }
    }

    static let inUse = IOError(errnoCode: EADDRINUSE, reason: "bind")

    static func bindEvery(_ host: String, port: Int, _ network: FakeNetwork) async throws -> [FakeSocket] {
        let engine = MediaEngine(eventLoop: EmbeddedEventLoop(), dtlsContext: try DTLSContext(certificate: DTLSCertificate()))
        return try await engine.bindEvery(host, port: port, what: "test", bind: { try network.bind($0) },
                                          localAddress: { $0.address }, close: { network.closed.append($0.address) })
    }

    @Test("a wildcard binds IPv4 then IPv6 on the port the first one got")
    func wildcard() async throws {
        let network = FakeNetwork { _, _ in nil }
        let sockets = try await Self.bindEvery("0.0.0.0", port: 0, network)
        #expect(sockets.map(\.address.port) == [5000, 5000])
        #expect(sockets.map(\.address.protocol) == [.inet, .inet6])
    }

    @Test("port 0: the port picked on IPv4 is in use on IPv6, so everything is closed and another port picked")
    func retryOnPortInUse() async throws {
        let network = FakeNetwork { address, attempt in address.protocol == .inet6 && attempt == 2 ? MediaEngineBindTests.inUse : nil }
        let sockets = try await Self.bindEvery("::", port: 0, network)
        #expect(sockets.map(\.address.port) == [5001, 5001])
        #expect(network.closed.map(\.port) == [5000], "the first IPv4 socket was closed")
    }

    @Test("a port that was asked for and is in use on IPv6: the IPv4 socket is closed and the error thrown")
    func givenPortInUse() async throws {
        let network = FakeNetwork { address, _ in address.protocol == .inet6 ? MediaEngineBindTests.inUse : nil }
        await #expect(throws: IOError.self) { try await Self.bindEvery("0.0.0.0", port: 7880, network) }
        #expect(network.closed.map(\.port) == [7880] && network.binds.count == 2, "no retry for a given port")
    }

    @Test("port 0 in use on every try: gives up after a bounded number of tries, everything closed")
    func retriesAreBounded() async throws {
        let network = FakeNetwork { address, _ in address.protocol == .inet6 ? MediaEngineBindTests.inUse : nil }
        await #expect(throws: IOError.self) { try await Self.bindEvery("0.0.0.0", port: 0, network) }
        #expect(network.binds.count == 2 * MediaEngine.portPickAttempts)
        #expect(network.closed.count == MediaEngine.portPickAttempts)
    }

    @Test("no IPv6 on the machine: IPv4 alone is bound and reported")
    func ipv6Unavailable() async throws {
        let network = FakeNetwork { address, _ in
            address.protocol == .inet6 ? IOError(errnoCode: EAFNOSUPPORT, reason: "socket") : nil
        }
        let sockets = try await Self.bindEvery("0.0.0.0", port: 0, network)
        #expect(sockets.map(\.address.protocol) == [.inet])
        #expect(network.closed.isEmpty)
    }

    @Test("a specific address: that one socket; its failure is thrown even if it looks like missing IPv6")
    func specificHost() async throws {
        let network = FakeNetwork { _, _ in IOError(errnoCode: EADDRNOTAVAIL, reason: "bind") }
        await #expect(throws: IOError.self) { try await Self.bindEvery("::1", port: 0, network) }
        let ok = FakeNetwork { _, _ in nil }
        #expect(try await Self.bindEvery("127.0.0.1", port: 9, ok).map(\.address.port) == [9])
    }
}
