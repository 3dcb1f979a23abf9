// A stand-in for the one type of swift-metrics that StageTransport's MediaDropReason.swift uses
// (Counter), so scripts/fuzz.sh can compile the pipe's receive path with swiftc alone.
public final class Counter: Sendable {
    public init(label: String, dimensions: [(String, String)] = []) {}
    public func increment() {}
}
