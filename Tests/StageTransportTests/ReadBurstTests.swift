import Testing
@testable import StageTransport

/// Ending the outermost read burst flushes; a flush that fails closes the channel, and the
/// channel's `channelInactive` ends its handler's burst again from inside the first `end`. When
/// the burst was a struct property of the handler, that inner call was a second access to the
/// property while the first was running: Swift's "Fatal access conflict detected" (the soak's
/// server crash). These drive the same re-entry directly.
@Suite struct ReadBurstTests {
    @Test func endingAgainFromInsideTheFlushIsANoOp() {
        let burst = MediaEngine.ReadBurst()
        var begun = 0, ended = 0
        burst.begin { begun += 1 }
        burst.end {
            ended += 1
            burst.end { ended += 1 }        // channelInactive of the channel the flush closed
            burst.begin { begun += 1 }      // a read delivered from inside the flush opens a new burst…
            burst.end { ended += 1 }        // …and ends it
        }
        #expect(begun == 2 && ended == 2)
    }

    @Test func beginAndEndAreCountedOnceEach() {
        let burst = MediaEngine.ReadBurst()
        var depth = 0
        for _ in 0..<3 { burst.begin { depth += 1 } }
        #expect(depth == 1)
        for _ in 0..<3 { burst.end { depth -= 1 } }
        #expect(depth == 0)
    }
}
