import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import Metrics
import NIOCore
import Prometheus
import ServiceLifecycle
import StageProtocol
import StageTransport
import Synchronization

/// Assembles and runs the stage server: store, keys, control plane, signaling, metrics.
public enum StageServerApp {
    static let connectionIds = Atomic<UInt64>(0)

    /// Runs until SIGINT/SIGTERM.
    /// - Throws: `TLSFilesError` or `ServerConfigurationError` first, before anything starts, when
    ///   the TLS files or the `--public-ip` values cannot be used.
    public static func run(_ configuration: ServerConfiguration) async throws {
        let log = ServerLog.server
        let tlsConfiguration = try configuration.tls?.makeServerConfiguration()
        let advertised = try configuration.advertisedAddresses()
        try FileManager.default.createDirectory(at: configuration.dataDirectory, withIntermediateDirectories: true)
        let store = try Store(path: configuration.dataDirectory.appendingPathComponent("proscenium.sqlite").path)
        try await store.closeDanglingSessions(at: Date())
        try await store.stopDanglingCompositions(at: Date())
        let accountId = try store.metaValue("account_id", make: Identifiers.accountId)
        let names = ResourceNames(region: configuration.region, accountId: accountId)
        let signer = try ParticipantTokenSigner(pemRepresentation: ServerSecrets.tokenSigningKeyPEM(dataDirectory: configuration.dataDirectory))
        let verifier = ParticipantTokenVerifier(serverKey: signer.privateKey.publicKey, serverKeyId: signer.keyId)
        let (accessKey, created) = try ServerSecrets.accessKey(configuration: configuration)
        let hub = SignalingHub(store: store, maxPublishersPerStage: configuration.maxPublishersPerStage,
                              sessionLinger: .seconds(configuration.sessionLingerSeconds))
        let endpoints = PublicEndpoints(baseURL: configuration.resolvedPublicURL)
        let board = CompositionBoard(store: store, idleTimeout: configuration.compositionIdleTimeoutSeconds,
                                     publisherCount: { await hub.publisherCount(stageId: $0) })
        let origin = HLSOrigin()
        let runner = makeCompositionRunner(configuration: configuration, board: board, origin: origin, signer: signer, names: names,
                                           endpoints: endpoints)
        await board.attach(runner)
        await board.startWatching()
        var controlPlane = ControlPlane(store: store, names: names, signer: signer, hub: hub, endpoints: endpoints, board: board,
                                        runner: runner, storageRoot: configuration.dataDirectory.appendingPathComponent("s3", isDirectory: true),
                                        viewerCount: { await origin.viewerCount(channelId: $0) })
        controlPlane.forgetChannel = { await origin.remove(channelId: $0) }
        let api = APIResponder(controlPlane: controlPlane, accessKey: accessKey)
        let admission = TokenAdmission(verifier: verifier, store: store, names: names)
        // Before the media port opens: a counter built before the bootstrap would count nowhere.
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        let workers = try await startMedia(configuration, advertised: advertised, log: log)
        let media = MediaService(workers: workers, hub: hub, options: .init(
            workerMaxConsumers: configuration.workerMaxConsumers, downlinkAdaptation: configuration.downlinkAdaptation, dynacast: configuration.dynacast,
            lossRepair: configuration.lossRepair, pacing: configuration.pacing))
        let mediaSummary = "\(workers.count) worker\(workers.count == 1 ? "" : "s"), udp \(ports(workers.map(\.engine.localPort))), "
            + "tcp \(workers[0].engine.tcpPort == nil ? "off" : ports(workers.compactMap(\.engine.tcpPort))), "
            + "candidates \(workers[0].candidates.udpAddresses.joined(separator: " "))"
        let whip = WHIPResponder(admission: admission, media: media)
        await hub.setEndMedia { stageId, participantId, reason in await media.end(stageId: stageId, participantId: participantId, reason: reason) }


        let router = Router(context: StageRequestContext.self)
        router.get("/healthz") { _, _ in "ok\n" }
        router.get("/metrics") { _, _ in
            AllocationGauges.record(await media.allocationSnapshot())
            await WorkerGauges.record(media)
            PipeGauges.record(await media.pipeActivity())
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        router.post("/:operation") { request, context in
            await api.respond(request, operation: context.parameters.get("operation") ?? "")
        }
        whip.addRoutes(to: router)
        HLSResponder(origin: origin).addRoutes(to: router)
        router.ws("/events/:stageId") { _, _ in
            .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            let stageId = context.requestContext.parameters.get("stageId") ?? ""
            let session = SignalingConnection(hub: hub, admission: admission, media: media, stageId: stageId,
                                           connectionId: connectionIds.add(1, ordering: .relaxed).newValue)
            try await session.run(inbound: inbound, outbound: outbound)
        }

        let httpHost = httpBindHost(configuration, log: log)
        let idle = NIOCore.TimeAmount.nanoseconds(Int64(configuration.httpIdleTimeoutSeconds * 1e9))
        let http: HTTPServerBuilder = .http1WebSocketUpgrade(webSocketRouter: router, configuration: .init(
            http1: .init(idleTimeout: idle),
            ws: .init(maxFrameSize: ProtocolVersion.maxMessageBytes, autoPing: .enabled(timePeriod: .seconds(30)), validateUTF8: true)),
            firstRequestDeadline: idle, maxHeadBytes: 32 << 10)
        let connectionCap = httpConnectionCap(configuration)
        let app = Application(
            router: router,
            server: try tlsConfiguration.map { try .tls(http, tlsConfiguration: $0) } ?? http,
            configuration: .init(address: .hostname(httpHost, port: configuration.httpPort), serverName: "proscenium",
                                 availableConnectionsDelegate: MaximumAvailableConnections(connectionCap)),
            onServerRunning: { _ in
                log.info("stage-server listening", metadata: [
                    "http": "\(httpHost.contains(":") ? "[\(httpHost)]" : httpHost):\(configuration.httpPort)\(tlsConfiguration == nil ? "" : " (tls)")", "public_url": "\(endpoints.baseURL)",
                    "data_dir": "\(configuration.dataDirectory.path)", "account": "\(accountId)", "region": "\(configuration.region)",
                    "media": "\(mediaSummary)",
                ])
                if created { printCredentialHelp(accessKey, configuration: configuration, endpoint: endpoints.baseURL) }
            },
            logger: Logger(label: "proscenium.http")
        )
        try await runUntilSignalled(app, log: log) {
            await board.stopAll(reason: "the server is shutting down", timeout: .seconds(5))
            await hub.closeAll()
        }
        await board.stopWatching()
        await hub.closeAll()
        for worker in workers { await worker.engine.close() }
        try? await store.flush()
    }

    /// Runs the application until SIGTERM or SIGINT. On the signal, `beforeShutdown` runs while
    /// every socket is still open — compositions stop (recordings complete) and each signaling
    /// client is told `disconnect(serverShutdown)`; the HTTP server's own graceful shutdown
    /// would close the sockets first — then the server shuts down.
    static func runUntilSignalled(_ app: some ApplicationProtocol, log: Logger,
                                  beforeShutdown: @escaping @Sendable () async -> Void) async throws {
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: log))
        let signals = AsyncStream<Int32>.makeStream()
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGTERM, SIGINT] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { signals.continuation.yield(number) }
            source.resume()
            sources.append(source)
        }
        defer { sources.forEach { $0.cancel() } }
        let watcher = Task {
            for await number in signals.stream {
                log.info("shutting down", metadata: ["signal": "\(number)"])
                await beforeShutdown()
                // Let the disconnect messages reach the sockets before they close.
                try? await Task.sleep(for: .milliseconds(200))
                await group.triggerGracefulShutdown()
                break
            }
        }
        defer { watcher.cancel() }
        try await group.run()
    }

    /// `maxHTTPConnections`, lowered to leave 1,024 descriptors of the open-file limit for the
    /// media sockets, the database, compositors' pipes and files.
    static func httpConnectionCap(_ configuration: ServerConfiguration) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(Int32.max) else {
            return configuration.maxHTTPConnections
        }
        return max(64, min(configuration.maxHTTPConnections, Int(limit.rlim_cur) - 1024))
    }

    static func printCredentialHelp(_ key: ServerSecrets.AccessKey, configuration: ServerConfiguration, endpoint: String) {
        let path = configuration.dataDirectory.appendingPathComponent("credentials.json").path
        let help = """

            Generated control-plane credentials (stored in \(path)):
              export AWS_ACCESS_KEY_ID=\(key.accessKeyId)
              export AWS_SECRET_ACCESS_KEY=\(key.secretAccessKey)
              export AWS_DEFAULT_REGION=\(configuration.region)
              aws ivs-realtime create-stage --name demo --endpoint-url \(endpoint)
            Set STAGE_ACCESS_KEY_ID / STAGE_SECRET_ACCESS_KEY to choose your own.

            """
        FileHandle.standardOutput.write(Data(help.utf8))
    }
}
