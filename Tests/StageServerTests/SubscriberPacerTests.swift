import NIOCore
import NIOPosix
@testable import StageServer
import Synchronization
import Testing

/// The subscriber's pacer on a real event loop and the real clock: what it holds leaves in order,
/// rewritten, spread at the pacing rate; audio is not held; repairs go ahead of held video within
/// one burst of debt; nothing is held without an estimate.
@Suite(.serialized)
struct SubscriberPacerTests {
    /// What the sink saw: when, the first byte (the packet's index, written by its rewrite), its size.
    final class Sent: PacedSink, Sendable {
        let packets = Mutex<[(at: ContinuousClock.Instant, index: UInt8, size: Int)]>([])
        func write(_ packet: UnsafeRawBufferPointer, rewrite: (UnsafeMutableRawBufferPointer) -> Void) -> Bool {
            var copy = [UInt8](packet)
            copy.withUnsafeMutableBytes(rewrite)
            packets.withLock { $0.append((.now, copy[0], copy.count)) }
            return true
        }
        var count: Int { packets.withLock { $0.count } }
    }

    static func waitFor(_ sent: Sent, count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while sent.count < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
    }

    @Test("a burst of video leaves in order, rewritten, no faster than the pacing rate; audio goes at once")
    func burstIsSpread() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let sent = Sent()
        let accepted = try await loop.submit {
            let pacer = SubscriberPacer(eventLoop: loop)
            pacer.pace(for: 200_000)  // paced at 300 kbps
            var accepted = (0..<12).map { index in
                [UInt8](repeating: 0, count: 1_000).withUnsafeBytes { packet in
                    pacer.send(packet, rewrite: { $0[0] = UInt8(index) }, as: .video, via: sent)
                }
            }
            accepted.append([UInt8](repeating: 0, count: 100).withUnsafeBytes { packet in
                pacer.send(packet, rewrite: { $0[0] = 99 }, as: .audio, via: sent)
            })
            // Kept alive until it has sent what it holds.
            let kept = NIOLoopBound(pacer, eventLoop: loop)
            loop.scheduleTask(in: .seconds(5)) { withExtendedLifetime(kept.value) {} }
            return accepted
        }.get()
        #expect(accepted.allSatisfy { $0 })
        try await Self.waitFor(sent, count: 13)
        let packets = sent.packets.withLock { $0 }
        let video = packets.filter { $0.size == 1_000 }
        #expect(video.map(\.index) == (0..<12).map { UInt8($0) }, "in order, each rewritten before it was held")
        let audio = try #require(packets.first { $0.size == 100 })
        let last = try #require(video.last)
        #expect(audio.index == 99)
        #expect(audio.at < last.at, "audio is not held behind the video")
        // 11,000 bytes held; even at the rate the queue-time limit allows for all of them
        // (11,000 × 8 / 0.25 s = 352 kbps) they take 250 ms.
        let span = last.at - video[0].at
        #expect(span >= .milliseconds(240), "spread over \(span)")
    }

    @Test("without an estimate every packet goes at once")
    func unpacedIsDirect() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let sent = Sent()
        let sentInline = try await loop.submit {
            let pacer = SubscriberPacer(eventLoop: loop)
            for index in 0..<12 {
                _ = [UInt8](repeating: 0, count: 1_000).withUnsafeBytes { packet in
                    pacer.send(packet, rewrite: { $0[0] = UInt8(index) }, as: .video, via: sent)
                }
            }
            return sent.count
        }.get()
        #expect(sentInline == 12)
    }

    @Test("a full queue refuses what comes beyond it (pacer_queue_full)")
    func fullQueueDrops() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let sent = Sent()
        let accepted = try await loop.submit {
            let pacer = SubscriberPacer(eventLoop: loop)
            pacer.pace(for: 200_000)
            let accepted = (0..<1_000).map { _ in
                [UInt8](repeating: 0, count: 1_200).withUnsafeBytes { pacer.send($0, rewrite: { _ in }, as: .video, via: sent) }
            }
            pacer.close()
            return accepted
        }.get()
        // The first goes at once; 833 × 1,200 bytes fit in 1 MB; the other 166 are refused.
        #expect(accepted.filter { $0 }.count == 1 + SubscriberPacer.capacityBytes / 1_200)
        #expect(accepted.suffix(166).allSatisfy { !$0 })
        #expect(sent.count == 1, "closed: nothing held is sent")
    }

    @Test("a repair goes ahead of held video while the budget is less than a burst in debt, then is refused (repair_over_budget)")
    func repairsAreBounded() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let sent = Sent()
        let accepted = try await loop.submit {
            let pacer = SubscriberPacer(eventLoop: loop)
            pacer.pace(for: 200_000)  // paced at 300 kbps; one burst is the 2,400-byte minimum
            let send = { (index: Int, traffic: SubscriberPacer.Traffic) in
                [UInt8](repeating: 0, count: 1_000).withUnsafeBytes { pacer.send($0, rewrite: { $0[0] = UInt8(index) }, as: traffic, via: sent) }
            }
            // Video 0 leaves (1,000 in debt), 1 and 2 are held; repairs 10 and 11 take the
            // debt to 3,000 bytes; repair 12 would go beyond one burst.
            let accepted = [send(0, .video), send(1, .video), send(2, .video), send(10, .repair), send(11, .repair), send(12, .repair)]
            let kept = NIOLoopBound(pacer, eventLoop: loop)
            loop.scheduleTask(in: .seconds(5)) { withExtendedLifetime(kept.value) {} }
            return accepted
        }.get()
        #expect(accepted == [true, true, true, true, true, false])
        try await Self.waitFor(sent, count: 5)
        #expect(sent.packets.withLock { $0.map(\.index) } == [0, 10, 11, 1, 2], "the repairs went ahead of the held video")
    }
}
