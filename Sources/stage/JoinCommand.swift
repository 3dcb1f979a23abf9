import ArgumentParser
import Dispatch
import Foundation
import StageKit

struct Join: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Join a stage with a participant token and print renderer events until Ctrl-C.",
        discussion: "Publishes stream descriptors named camera and mic; real media arrives with the media plane.")

    @Option(help: "The participant token.") var token: String
    @Option(help: "Strategy from the IVS guide: \(StrategyChoice.help).") var strategy: StrategyChoice = .videoChat
    @Flag(help: "One JSON object per event, for scripts.") var json = false
    @Flag(help: "Start with the microphone muted.") var muted = false

    func run() async throws {
        try await JoinSession(token: token, strategy: strategy, json: json, muted: muted).run()
    }
}

/// Joins, prints events, leaves on SIGINT/SIGTERM (after which the process exits 0).
@MainActor
final class JoinSession {
    let stage: Stage
    let printer: EventPrinter
    private var signalSources: [any DispatchSourceSignal] = []

    init(token: String, strategy: StrategyChoice, json: Bool, muted: Bool) throws {
        let streams = [LocalStageStream(device: .init(deviceId: "camera", kind: .video, friendlyName: "Camera")),
                       LocalStageStream(device: .init(deviceId: "mic", kind: .audio, friendlyName: "Microphone"), muted: muted)]
        stage = try Stage(token: token, strategy: ExampleStrategy(strategy, streams: streams))
        printer = EventPrinter(json: json)
        stage.addRenderer(printer)
        stage.errorDelegate = printer
    }

    func run() async throws {
        let finished = AsyncStream<Void>.makeStream()
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
            source.setEventHandler { [weak self] in
                MainActor.assumeIsolated { self?.stage.leave() }
                finished.continuation.finish()
            }
            source.resume()
            signalSources.append(source)
        }
        printer.onDisconnect = { finished.continuation.finish() }
        do {
            try await stage.join()
        } catch let error as StageError {
            throw ValidationError("could not join: \(error.message)")
        }
        for await _ in finished.stream {}
        if stage.connectionState != .disconnected { stage.leave() }
        if let error = printer.disconnectError, error.code != .disconnected(.disconnectedByOperator) { throw ExitCode(1) }
    }
}
