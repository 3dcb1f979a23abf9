import Foundation
import StageProtocol

extension StageServerApp {
    /// The runner of server-side compositions: a supervisor of `stage-compositor` processes
    /// (found beside this executable, or at `STAGE_COMPOSITOR_BIN`), feeding `origin`.
    static func makeCompositionRunner(configuration: ServerConfiguration, board: CompositionBoard, origin: HLSOrigin,
                                      signer: ParticipantTokenSigner, names: ResourceNames,
                                      endpoints: PublicEndpoints) -> any CompositionRunner {
        let executable = ProcessInfo.processInfo.environment["STAGE_COMPOSITOR_BIN"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
                .appendingPathComponent("stage-compositor")
        let environment = CompositorSupervisor.Environment(
            executable: executable, origin: origin, board: board,
            mintToken: { stageId, compositionId in
                try compositorToken(stageId: stageId, compositionId: compositionId, signer: signer, names: names, endpoints: endpoints)
            },
            caFile: configuration.tls?.certificateChain)
        return CompositorSupervisor(environment: environment)
    }

    /// A subscribe-only token for the compositor (twelve hours, renewed on each restart). It is
    /// not stored: nobody lists or disconnects the compositor, and it publishes nothing.
    static func compositorToken(stageId: String, compositionId: String, signer: ParticipantTokenSigner, names: ResourceNames,
                                endpoints: PublicEndpoints) throws -> String {
        let now = Int(Date().timeIntervalSince1970)
        let claims = ParticipantTokenClaims(
            exp: now + 12 * 3600, iat: now, jti: "composition-\(compositionId)", resource: names.stage(stageId), topic: stageId,
            eventsURL: endpoints.events(stageId: stageId), whipURL: endpoints.whip, userId: "composition",
            attributes: ["composition": compositionId],
            capabilities: Capabilities(allowPublish: false, allowSubscribe: true))
        return try signer.sign(claims)
    }
}
