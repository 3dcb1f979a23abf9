import ArgumentParser
import Foundation
import StageKit

/// `--ca-file`: whom to trust on `https://` and `wss://` URLs (control plane and signaling).
struct TLSOptions: ParsableArguments {
    @Option(help: ArgumentHelp("PEM file of CA certificates to trust for https:// and wss:// instead of the system roots "
                               + "(default $STAGE_CA_FILE).", valueName: "path"))
    var caFile: String?

    /// The trust to use; an unreadable CA file is a usage error naming the file.
    func configuration() throws -> StageTLSConfiguration {
        let path = caFile ?? ProcessInfo.processInfo.environment["STAGE_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        let configuration = StageTLSConfiguration(caFile: path)
        do {
            try configuration.validate()
        } catch {
            throw ValidationError("--ca-file: \(error)")
        }
        return configuration
    }
}
