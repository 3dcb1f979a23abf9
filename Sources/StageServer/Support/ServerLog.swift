import Logging

/// The server's loggers, one label per subsystem. Log lines carry their facts as metadata.
enum ServerLog {
    static let server = Logger(label: "proscenium.server")
    static let store = Logger(label: "proscenium.store")
    static let api = Logger(label: "proscenium.api")
    static let signaling = Logger(label: "proscenium.signaling")
    static let composition = Logger(label: "proscenium.composition")
    static let media = Logger(label: "proscenium.media")
}
