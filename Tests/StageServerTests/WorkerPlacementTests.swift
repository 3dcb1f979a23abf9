@testable import StageServer
import Testing

/// `WorkerPlacement`: a new stage's router goes to the least loaded media worker — fewest
/// consumers, then fewest peer connections, the first on a tie — and loads follow connections
/// opening and closing, never below zero.
struct WorkerPlacementTests {
    /// (connections opened (+) or closed (−) per worker with their consumers, the worker chosen after).
    static let cases: [(name: String, changes: [(worker: Int, consumers: Int, connections: Int)], chosen: Int)] = [
        ("idle: the first", [], 0),
        ("a publisher on the first: the second", [(0, 0, 1)], 1),
        ("one each: the first", [(0, 0, 1), (1, 0, 1)], 0),
        ("consumers outweigh connections", [(0, 3, 1), (1, 0, 4)], 1),
        ("fewer consumers wins", [(0, 2, 2), (1, 5, 2)], 0),
        ("closed again: the first", [(0, 2, 1), (0, -2, -1)], 0),
        ("a close without an open stays at zero", [(1, -3, -1)], 0),
        ("an unknown worker changes nothing", [(7, 9, 9)], 0),
    ]

    @Test(arguments: cases.indices)
    func choosesTheLeastLoaded(_ index: Int) {
        let example = Self.cases[index]
        var placement = WorkerPlacement(workers: 2)
        for change in example.changes {
            placement.change(worker: change.worker, consumers: change.consumers, connections: change.connections)
        }
        #expect(placement.choose() == example.chosen, "\(example.name)")
        #expect(placement.loads.allSatisfy { $0.consumers >= 0 && $0.connections >= 0 }, "\(example.name)")
    }

    @Test func oneWorkerTakesEverything() {
        var placement = WorkerPlacement(workers: 1)
        placement.change(worker: 0, consumers: 100, connections: 10)
        #expect(placement.choose() == 0)
        #expect(WorkerPlacement(workers: 0).loads.count == 1)
    }
}
