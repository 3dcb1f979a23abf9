import ArgumentParser
import Foundation
import StageControl
import StageProtocol

struct CreateStage: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "create-stage", abstract: "Create a stage.")
    @OptionGroup var options: ControlPlaneOptions
    @Option(help: "Stage name (letters, digits, - and _).")
    var name = ""

    func run() async throws {
        try await options.run({ try await $0.createStage(name: name) }) { stage in
            "stage   \(stage.arn)\nevents  \(stage.endpoints?.events ?? "-")\nwhip    \(stage.endpoints?.whip ?? "-")"
        }
    }
}

struct MintToken: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "token", abstract: "Mint a participant token for a stage.")
    @OptionGroup var options: ControlPlaneOptions
    @Option(help: "The stage ARN.") var stageArn: String
    @Option(help: "Your application's id for this participant.") var userId = ""
    @Option(name: .customLong("attribute"), help: "key=value, repeatable (e.g. role=moderator); 1 KB in total.")
    var attributes: [String] = []
    @Option(name: .customLong("capability"), help: "PUBLISH or SUBSCRIBE, repeatable (default both).")
    var capabilities: [String] = []
    @Option(help: "Validity in minutes, 1–20160.") var duration = 720

    func validate() throws {
        for attribute in attributes where !attribute.contains("=") {
            throw ValidationError("--attribute must be key=value, got '\(attribute)'")
        }
    }

    func run() async throws {
        var map: [String: String] = [:]
        for attribute in attributes {
            let parts = attribute.split(separator: "=", maxSplits: 1).map(String.init)
            map[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        let capabilities = self.capabilities.isEmpty ? ["PUBLISH", "SUBSCRIBE"] : self.capabilities.map { $0.uppercased() }
        try await options.run({
            try await $0.createParticipantToken(stageArn: stageArn, userId: userId, attributes: map, capabilities: capabilities,
                                                durationMinutes: duration)
        }) { token in
            "participant \(token.participantId ?? "-")  expires \(token.expirationTime.map { "\($0)" } ?? "-")\n\(token.token ?? "")"
        }
    }
}

struct ListParticipants: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "participants",
                                                    abstract: "List the participants of a stage session (default: the latest).")
    @OptionGroup var options: ControlPlaneOptions
    @Option(help: "The stage ARN.") var stageArn: String
    @Option(help: "Session id (st-…); default the latest session.") var sessionId: String?

    func run() async throws {
        try await options.run({ client in
            let session = try await resolveSession(client, stageArn: stageArn, sessionId: sessionId)
            return try await client.call("ListParticipants", ["stageArn": stageArn, "sessionId": session, "maxResults": 100],
                                         as: IVSAPI.ListParticipantsResponse.self)
        }) { response in
            response.participants.isEmpty ? "no participants" : response.participants.map {
                "\($0.participantId ?? "-")  \($0.state ?? "-")  user=\($0.userId ?? "")  published=\($0.published ?? false)"
            }.joined(separator: "\n")
        }
    }
}

struct ListEvents: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "events", abstract: "List a participant's events in a session.")
    @OptionGroup var options: ControlPlaneOptions
    @Option(help: "The stage ARN.") var stageArn: String
    @Option(help: "The participant id.") var participantId: String
    @Option(help: "Session id (st-…); default the latest session.") var sessionId: String?

    func run() async throws {
        try await options.run({ client in
            let session = try await resolveSession(client, stageArn: stageArn, sessionId: sessionId)
            return try await client.call("ListParticipantEvents", [
                "stageArn": stageArn, "sessionId": session, "participantId": participantId, "maxResults": 100,
            ], as: IVSAPI.ListParticipantEventsResponse.self)
        }) { response in
            response.events.map { event in
                "\(event.eventTime.map { "\($0)" } ?? "-")  \(event.name ?? "-")"
                    + (event.remoteParticipantId.map { "  remote=\($0)" } ?? "") + (event.errorCode.map { "  error=\($0)" } ?? "")
            }.joined(separator: "\n")
        }
    }
}

struct Disconnect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "disconnect",
                                                    abstract: "Disconnect a participant; its token can no longer join.")
    @OptionGroup var options: ControlPlaneOptions
    @Option(help: "The stage ARN.") var stageArn: String
    @Option(help: "The participant id.") var participantId: String
    @Option(help: "Reason shown to the participant.") var reason = ""

    func run() async throws {
        try await options.run({ client in
            try await client.disconnectParticipant(stageArn: stageArn, participantId: participantId, reason: reason)
            return IVSAPI.Empty()
        }) { _ in "disconnected \(participantId)" }
    }
}

/// The given session, or the newest one of the stage.
func resolveSession(_ client: ControlPlaneClient, stageArn: String, sessionId: String?) async throws -> String {
    if let sessionId { return sessionId }
    let sessions = try await client.call("ListStageSessions", ["stageArn": stageArn, "maxResults": 1],
                                         as: IVSAPI.ListStageSessionsResponse.self)
    guard let latest = sessions.stageSessions.first?.sessionId else {
        throw ValidationError("stage \(stageArn) has no session yet: nobody has joined it")
    }
    return latest
}
