import NIOCore
import NIOPosix
@testable import StageServer
@testable import StageSFU
import StageTransport
import StageWire
import Testing

/// A `PipeOriginEnd` and a `PipeFarEnd`, each on its own event loop (as two media workers),
/// over two real `PipeTransport`s on 127.0.0.1.
struct PipeEndsTests {
    @Test("a layer the origin's publisher was told to pause is offered to the far copy's allocators at the origin's peak, and resumes there when the origin resumes it; the far end answers echoes (the pipe's delay)")
    func pausedLayerReachesTheCopy() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let loops = Array(group.makeIterator())
        let near = try await PipeTransport.open(on: loops[0]), remote = try await PipeTransport.open(on: loops[1])
        let keys = SRTPKeyingMaterial.pipePair()
        let nearAddress = near.localAddress, remoteAddress = remote.localAddress
        let far = try await loops[1].submit {
            try remote.connect(remote: nearAddress, keys: keys.forB)
            return PipeFarEnd(transport: remote)
        }.get()
        let held = Held()
        let (origin, description, peak) = try await loops[0].submit { () -> (PipeOriginEnd, PipeOriginEnd.Description, Int) in
            try near.connect(remote: remoteAddress, keys: keys.forA)
            let end = PipeOriginEnd(transport: near)
            let producer = Producer(id: "host:video", kind: .video, layers: ["q", "h", "f"]) { _ in }
            held.producer = producer
            // A second of each layer (f: 10,000 bytes), then f paused by dynacast.
            let start = PacketTime.now
            producer.measureLayerRates(now: start)
            for layer in 0..<3 {
                var packet: [UInt8] = []
                RTPHeader(payloadType: 96, sequenceNumber: 1, timestamp: 0, ssrc: 0x10 + UInt32(layer)).serialize(into: &packet)
                packet += [UInt8](repeating: 0, count: 1_000 * (layer + 1) * (layer + 1) + 100 - packet.count)
                packet.withUnsafeMutableBytes { producer.receive($0, fields: RTPFixedFields(UnsafeRawBufferPointer($0)), layer: layer, now: start) }
            }
            producer.measureLayerRates(now: start + .seconds(1))
            producer.setPublisherLayers(enabled: [true, true, false], now: start + .seconds(1))
            return (end, end.describe(producer, streamId: "camera"), producer.recentPeakBitrates[2])
        }.get()
        try await loops[1].submit { far.add(description, publisherId: "host") }.get()
        try await loops[0].submit { origin.start(description.index) }.get()
        #expect(peak == 72_800)

        let readCopy = { @Sendable in
            try await loops[1].submit { () -> ([Bool], [Int])? in
                far.producers(of: "host").first.map { ($0.pausedByPublisher, $0.allocatableBitrates()) }
            }.get()
        }
        /// The copy's state once it is `paused` (the origin announces every second), within 3 s.
        func copyState(once paused: [Bool]) async throws -> ([Bool], [Int])? {
            var state = try await readCopy()
            for _ in 0..<30 where state?.0 != paused {
                try await Task.sleep(for: .milliseconds(100))
                state = try await readCopy()
            }
            return state
        }
        let paused = try await copyState(once: [false, false, true])
        #expect(paused?.0 == [false, false, true], "f paused at the origin")
        #expect(paused?.1 == [0, 0, peak], "offered at the origin's peak; q and h have sent nothing through the pipe")

        try await loops[0].submit { held.producer?.setPublisherLayers(enabled: [true, true, true]) }.get()
        let resumed = try await copyState(once: [false, false, false])
        #expect(resumed?.0 == [false, false, false], "f resumed at the origin")
        #expect(resumed?.1 == [0, 0, peak], "offered at its peak while it resumes")

        // The far end answered the origin's echo requests (one a second): the pipe's delay, on
        // loopback between two loops that do nothing else, well under 50 ms.
        let delay = try await loops[0].submit { origin.delay.oneWaySeconds }.get()
        #expect(delay.map { $0 < 0.05 } == true, "\(String(describing: delay))")
        await origin.close()
        await far.close()
        try await group.shutdownGracefully()
    }

    /// The origin's producer, touched on its event loop only.
    private final class Held: @unchecked Sendable { var producer: Producer? }
}
