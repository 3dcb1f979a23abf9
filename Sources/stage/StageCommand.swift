import ArgumentParser

@main
struct StageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stage",
        abstract: "Create stages, mint participant tokens and join stages from the terminal.",
        discussion: """
            Control-plane commands sign their requests with AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY \
            (or STAGE_ACCESS_KEY_ID / STAGE_SECRET_ACCESS_KEY, or ./stage-data/credentials.json written by \
            stage-server) and talk to --endpoint-url (default $STAGE_ENDPOINT or http://127.0.0.1:8080). \
            For https:// and wss:// with a private CA, --ca-file (or $STAGE_CA_FILE) names its PEM file.

            Example:
              stage create-stage --name demo
              stage token --stage-arn ARN --user-id alice --attribute role=host
              stage join --token TOKEN --strategy moderated
            """,
        subcommands: [CreateStage.self, MintToken.self, ListParticipants.self, ListEvents.self, Disconnect.self, Join.self,
                      Compose.self, ListCompositions.self, Devices.self])
}
