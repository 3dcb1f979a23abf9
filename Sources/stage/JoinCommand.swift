import ArgumentParser
import Dispatch
import Foundation
import StageDevices
import StageKit

struct Join: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Join a stage with a participant token, publish and watch media, print events until Ctrl-C.",
        discussion: """
            Publishes the test camera (VP8, simulcast) and a tone (Opus) unless told otherwise, and \
            receives what the strategy subscribes to. A status block (participants, publish and \
            subscribe state, bitrate, loss, round-trip time, the network path in use) is printed \
            every --status-interval seconds.
            While joined: `kill -USR1 <pid>` toggles the camera's mute, `kill -USR2 <pid>` the microphone's.
            """)

    @Option(help: "The participant token.") var token: String
    @Option(help: "Strategy from the IVS guide: \(StrategyChoice.help).") var strategy: StrategyChoice = .videoChat
    @Flag(help: "One JSON object per event, for scripts.") var json = false
    @Flag(help: "Start with the microphone muted.") var muted = false
    @Flag(help: "Start with the camera muted.") var cameraMuted = false
    @Option(help: "Seconds between status blocks (0: none; default 5, with --json 0: then one \"status\" object per stream).")
    var statusInterval: Int?
    @OptionGroup var media: MediaOptions
    @OptionGroup var tls: TLSOptions
    @OptionGroup var ice: ICEOptions

    func run() async throws {
        try await JoinedStage(command: self).run()
    }
}

/// Joins, prints events, leaves on SIGINT/SIGTERM (after which the process exits 0).
@MainActor
final class JoinedStage {
    let stage: Stage
    let printer: EventPrinter
    private var signalSources: [any DispatchSourceSignal] = []

    let streams: [LocalStageStream]
    let recorder: StreamRecorder?
    let speaker: SpeakerOutput?
    let view: ViewWindow?
    let status: StatusView
    let statusInterval: Int
    let statusAsJSON: Bool
    /// Set once a join succeeded: a disconnect before that is a join attempt that failed.
    private var hasJoined = false
    /// A join that gets no answer is tried again, up to this many attempts in all: on a lossy
    /// link the signaling connection's first packets can be lost several times over, and TCP's
    /// backoff (1, 3, 6 s…) then outlasts one attempt's 10 s.
    static let joinAttempts = 3

    init(command: Join) throws {
        streams = try command.media.streams(muteCamera: command.cameraMuted, muteMic: command.muted)
        // Devices are opened before the token is even read: a missing one is the first error.
        do {
            speaker = command.media.speaker ? try SpeakerOutput(device: command.media.speakerDevice) : nil
        } catch {
            throw ValidationError("--speaker: \(error)")
        }
        if command.media.echoSuppression {
            guard let speaker, let source = command.media.pulseSource else {
                throw ValidationError("--echo-suppression needs --speaker and --mic pulse or pulse:SOURCE")
            }
            let suppressor = EchoSuppressor()
            speaker.speaker.setEchoSuppressor(suppressor)
            try PulseMicrophone.shared(device: source).setEchoSuppressor(suppressor)
        }
        view = command.media.view ? try ViewWindow(width: command.media.viewDimensions().width,
                                                   height: command.media.viewDimensions().height) : nil
        stage = try Stage(token: command.token, strategy: ExampleStrategy(command.strategy, streams: streams),
                          tls: try command.tls.configuration(), ice: try command.ice.configuration())
        printer = EventPrinter(json: command.json)
        stage.addRenderer(printer)
        stage.errorDelegate = printer
        recorder = try command.media.record.map { try StreamRecorder(directory: $0) }
        if let recorder { stage.addRenderer(recorder) }
        if let speaker { stage.addRenderer(speaker) }
        if let view { stage.addRenderer(view) }
        status = StatusView()
        stage.addRenderer(status)
        statusInterval = command.statusInterval ?? (command.json ? 0 : 5)
        statusAsJSON = command.json
    }

    /// SIGUSR1 / SIGUSR2: toggle the mute of the camera / the microphone.
    private func handleMuteSignals() {
        for (signalNumber, kind) in [(SIGUSR1, MediaKind.video), (SIGUSR2, MediaKind.audio)] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
            source.setEventHandler { [weak self] in
                MainActor.assumeIsolated {
                    guard let stream = self?.streams.first(where: { $0.kind == kind }) else { return }
                    stream.setMuted(!stream.isMuted)
                }
            }
            source.resume()
            signalSources.append(source)
        }
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
        handleMuteSignals()
        printer.onDisconnect = { [weak self] in
            // A lost connection is joined again by the SDK, a join that timed out by the loop
            // below; only a final disconnect ends the command.
            guard let self, self.hasJoined, !self.stage.isReconnecting else { return }
            finished.continuation.finish()
        }
        for attempt in 1...Self.joinAttempts {
            do {
                try await stage.join()
                break
            } catch let error as StageError {
                guard error.code == .timedOut, attempt < Self.joinAttempts else { throw ValidationError("could not join: \(error.message)") }
                FileHandle.standardError.write(Data("join: no answer (attempt \(attempt) of \(Self.joinAttempts)); trying again\n".utf8))
            }
        }
        hasJoined = true
        let statusTask = Task { [weak self, statusInterval, statusAsJSON] in
            guard statusInterval > 0 else { return }
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(statusInterval))
                await self?.status.render(json: statusAsJSON)
            }
        }
        for await _ in finished.stream {}
        statusTask.cancel()
        if stage.connectionState != .disconnected { stage.leave() }
        recorder?.closeAll()
        view?.close()
        if let recorder, !recorder.paths.isEmpty { print("recorded: " + recorder.paths.joined(separator: " ")) }
        if let error = printer.disconnectError, error.code != .disconnected(.disconnectedByOperator) { throw ExitCode(1) }
    }
}
