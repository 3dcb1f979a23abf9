import ArgumentParser

@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stage-bench",
        abstract: "Proscenium benchmarks. Each prints its figures beside a reference measured in the same run.",
        subcommands: [SignalingBench.self, MediaBench.self, SDKMediaBench.self, ComposeBench.self, SoakBench.self, NetworkBench.self])
}
