import ArgumentParser
import Foundation
import StageControl
import StageProtocol

/// `stage compose`: what a backend does with IVS to broadcast a stage — a channel, an encoder
/// configuration, optionally a storage configuration, and a composition to them — in one step.
struct Compose: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compose",
        abstract: "Broadcast a stage: create a channel and start a composition to it (and to a recording); print the player URL.")
    @OptionGroup var options: ControlPlaneOptions
    @Option(help: "The stage ARN.") var stageArn: String
    @Option(help: "grid or pip.") var layout: LayoutChoice = .grid
    @Option(help: "PiP: the token attribute whose value \"true\" puts a participant in the inset.") var pipAttribute = "pip"
    @Option(help: "Featured participant: the token attribute whose value \"true\" features it.") var featuredAttribute: String?
    @Option(help: "LOW (LL-HLS) or NORMAL (classic HLS).") var latency: LatencyChoice = .low
    @Option(help: "Output size, WIDTHxHEIGHT.") var size = "1280x720"
    @Option(help: "Output frame rate, 1–60.") var framerate = 30
    @Option(help: "Video bitrate of the full-size rendition, bits per second.") var bitrate = 2_500_000
    @Option(help: "Also record to this bucket: a directory under the server's data dir, <data dir>/s3/<bucket>.")
    var record: String?

    enum LayoutChoice: String, ExpressibleByArgument { case grid, pip }
    enum LatencyChoice: String, ExpressibleByArgument {
        case low = "LOW", normal = "NORMAL"
        init?(argument: String) { self.init(rawValue: argument.uppercased()) }
    }

    struct Result: Encodable {
        var channelArn: String
        var playbackUrl: String
        var playerUrl: String
        var compositionArn: String
        var state: String
    }

    func run() async throws {
        let parts = size.split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2 else { throw ValidationError("--size: WIDTHxHEIGHT, got \(size)") }
        try await options.run({ client in
            let stageName = stageArn.split(separator: "/").last.map(String.init) ?? "stage"
            let channel = try await client.call("CreateChannel", ["name": "\(stageName)-channel", "latencyMode": latency.rawValue],
                                                as: IVSAPI.CreateChannelResponse.self).channel
            let encoder = try await client.call("CreateEncoderConfiguration", [
                "name": "\(stageName)-\(size)", "video": ["width": parts[0], "height": parts[1], "framerate": framerate, "bitrate": bitrate],
            ], as: IVSAPI.EncoderConfigurationResponse.self).encoderConfiguration
            var destinations: [[String: Any]] = [["channel": ["channelArn": channel.arn, "encoderConfigurationArn": encoder.arn]]]
            if let record {
                let storage = try await client.call("CreateStorageConfiguration", ["name": "\(stageName)-recording", "s3": ["bucketName": record]],
                                                    as: IVSAPI.StorageConfigurationResponse.self).storageConfiguration
                destinations.append(["s3": ["storageConfigurationArn": storage.arn, "encoderConfigurationArns": [encoder.arn]]])
            }
            var layoutBody: [String: Any] = [:]
            switch layout {
            case .grid:
                var grid: [String: Any] = [:]
                if let featuredAttribute { grid["featuredParticipantAttribute"] = featuredAttribute }
                layoutBody["grid"] = grid
            case .pip:
                var pip: [String: Any] = ["pipParticipantAttribute": pipAttribute]
                if let featuredAttribute { pip["featuredParticipantAttribute"] = featuredAttribute }
                layoutBody["pip"] = pip
            }
            let composition = try await client.call("StartComposition", ["stageArn": stageArn, "layout": layoutBody, "destinations": destinations],
                                                    as: IVSAPI.CompositionResponse.self).composition
            let playback = channel.playbackUrl ?? ""
            let player = playback.replacingOccurrences(of: "/hls/", with: "/play/").replacingOccurrences(of: "/master.m3u8", with: "")
            return Result(channelArn: channel.arn, playbackUrl: playback, playerUrl: player, compositionArn: composition.arn,
                          state: composition.state)
        }) { result in
            """
            composition \(result.compositionArn)  \(result.state)
            channel     \(result.channelArn)
            playback    \(result.playbackUrl)
            player      \(result.playerUrl)
            stop with:  aws ivs-realtime stop-composition --arn \(result.compositionArn) --endpoint-url <server>
            """
        }
    }
}

/// `stage compositions`: the compositions of the account (optionally of one stage), with their
/// destinations' states.
struct ListCompositions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "compositions", abstract: "List compositions and their destinations' states.")
    @OptionGroup var options: ControlPlaneOptions
    @Option(help: "Only this stage's compositions.") var stageArn: String?

    func run() async throws {
        try await options.run({ client in
            var input: [String: Any] = ["maxResults": 100]
            if let stageArn { input["filterByStageArn"] = stageArn }
            return try await client.call("ListCompositions", input, as: IVSAPI.ListCompositionsResponse.self)
        }) { response in
            response.compositions.isEmpty ? "no compositions" : response.compositions.map { composition in
                let destinations = composition.destinations.map(\.state).joined(separator: ",")
                return "\(composition.arn)  \(composition.state)  destinations=\(destinations)  stage=\(composition.stageArn)"
            }.joined(separator: "\n")
        }
    }
}
