import Foundation
import StageKit

/// Prints each renderer callback as a readable line, or as one JSON object with `--json`.
@MainActor
final class EventPrinter: StageRenderer, StageErrorDelegate {
    let json: Bool
    var onDisconnect: (() -> Void)?
    private(set) var disconnectError: StageError?
    private let clock = DateFormatter()
    private let timestamp: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()

    init(json: Bool) {
        self.json = json
        clock.dateFormat = "HH:mm:ss.SSS"
    }

    private func emit(_ event: String, _ participant: ParticipantInfo?, _ fields: [String: String] = [:], text: String) {
        if json {
            var object = fields
            object["event"] = event
            object["time"] = timestamp.string(from: Date())
            if let participant {
                object["participantId"] = participant.participantId
                object["userId"] = participant.userId
                object["isLocal"] = String(participant.isLocal)
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: (try? encoder.encode(object)) ?? Data(), as: UTF8.self))
        } else {
            let who = participant.map { "\($0.userId.isEmpty ? $0.participantId : $0.userId)\($0.isLocal ? " (you)" : "")" } ?? ""
            print("\(clock.string(from: Date()))  \(text.replacingOccurrences(of: "@", with: who))")
        }
        fflushStdout()
    }

    private func list(_ streams: [StageStream]) -> String {
        streams.map { "\($0.streamId)[\($0.kind.rawValue)\($0.isMuted ? ", muted" : "")]" }.joined(separator: " ")
    }

    func stage(_ stage: Stage, participantDidJoin participant: ParticipantInfo) {
        let attributes = participant.attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        emit("participantDidJoin", participant, ["attributes": attributes], text: "+ @ joined  \(attributes)")
    }
    func stage(_ stage: Stage, participantDidLeave participant: ParticipantInfo) {
        emit("participantDidLeave", participant, text: "- @ left")
    }
    func stage(_ stage: Stage, participant: ParticipantInfo, didChange publishState: ParticipantPublishState) {
        emit("didChangePublishState", participant, ["state": publishState.rawValue], text: "  @ publish: \(publishState.rawValue)")
    }
    func stage(_ stage: Stage, participant: ParticipantInfo, didChange subscribeState: ParticipantSubscribeState) {
        emit("didChangeSubscribeState", participant, ["state": subscribeState.rawValue], text: "  @ subscribe: \(subscribeState.rawValue)")
    }
    func stage(_ stage: Stage, participant: ParticipantInfo, didAdd streams: [StageStream]) {
        emit("didAddStreams", participant, ["streams": list(streams)], text: "  @ streams added: \(list(streams))")
    }
    func stage(_ stage: Stage, participant: ParticipantInfo, didRemove streams: [StageStream]) {
        emit("didRemoveStreams", participant, ["streams": list(streams)], text: "  @ streams removed: \(list(streams))")
    }
    func stage(_ stage: Stage, participant: ParticipantInfo, didChangeMutedStreams streams: [StageStream]) {
        emit("didChangeMutedStreams", participant, ["streams": list(streams)], text: "  @ mute changed: \(list(streams))")
    }
    func stage(_ stage: Stage, didChange connectionState: StageConnectionState, withError error: StageError?) {
        var fields = ["state": connectionState.rawValue]
        if let error { fields["error"] = error.message }
        emit("didChangeConnectionState", nil, fields,
             text: "* connection: \(connectionState.rawValue)" + (error.map { " (\($0.message))" } ?? ""))
        if connectionState == .disconnected {
            disconnectError = error
            onDisconnect?()
        }
    }
    func stage(_ stage: Stage, didEncounterError error: StageError) {
        emit("error", nil, ["error": error.message], text: "! \(error.message)")
    }
}

func fflushStdout() { fflush(nil) }
