import Testing
@testable import StageCompositor

@Suite("EncoderAudioPacer: AAC frames on the video clock")
struct EncoderAudioPacerTests {
    /// Interleaved stereo where sample `i` of the caller's stream is the value `i` (left) and `-i` (right).
    private func ramp(_ range: Range<Int>) -> [Float] {
        range.flatMap { [Float($0), -Float($0)] }
    }

    private func releaseAll(_ pacer: inout EncoderAudioPacer, upTo target: Int) -> [(planes: [[Float]], position: Int)] {
        var frames: [(planes: [[Float]], position: Int)] = []
        try? pacer.release(upTo: target) { planes, position in frames.append((planes, position)) }
        return frames
    }

    @Test("Frames are released only when whole before the frame's end, positions continuous, priming skipped")
    func pacing() {
        var pacer = EncoderAudioPacer(framerate: 30)
        var released: [(planes: [[Float]], position: Int)] = []
        for frame in 0..<30 {
            ramp(frame * 1600..<(frame + 1) * 1600).withUnsafeBufferPointer { pacer.append(interleaved: $0) }
            let target = pacer.target(afterFrame: frame)
            #expect(target == (frame + 1) * 1600)
            released += releaseAll(&pacer, upTo: target)
            #expect(pacer.position <= target && pacer.position + 1024 > target)
        }
        // One second: positions 1024, 2048, … up to 47104 (the frame 48128 would pass 48000).
        #expect(released.map(\.position) == Array(stride(from: 1024, through: 46_080, by: 1024)))
        // The first 1024 caller samples (the encoder's priming) are skipped: frame at 1024 holds sample 1024 on.
        #expect(released[0].planes[0][0] == 1024 && released[0].planes[1][0] == -1024)
        #expect(released[1].planes[0][1023] == 3071)
        #expect(pacer.insertedSilence == 0 && pacer.droppedSamples == 0)
        #expect(pacer.pendingCount == 48_000 - 47_104)
        // The remainder reaches the target exactly.
        let last = pacer.releaseRemainder(upTo: 48_000)
        #expect(last?.position == 47_104 && last?.planes[0].count == 896 && last?.planes[0].last == 47_999)
        #expect(pacer.releaseRemainder(upTo: 48_000) == nil)
    }

    @Test("A short caller gets silence, a caller far ahead is trimmed to the maximum lead")
    func underrunAndOverrun() {
        var pacer = EncoderAudioPacer(framerate: 30, maximumLead: 4800)
        // Nothing for 10 frames: the clock still advances with silence.
        for frame in 0..<10 { _ = releaseAll(&pacer, upTo: pacer.target(afterFrame: frame)) }
        #expect(pacer.position == 15_360)
        #expect(pacer.insertedSilence == 15_360 - 1024)
        // Then a burst of 1 s: everything beyond 100 ms ahead of the clock is dropped, oldest first.
        ramp(0..<49_024).withUnsafeBufferPointer { pacer.append(interleaved: $0) }  // 1024 skipped as priming
        let frames = releaseAll(&pacer, upTo: pacer.target(afterFrame: 10))
        #expect(frames.map(\.position) == [15_360, 16_384])
        #expect(frames[0].planes[0][0] == 1024)
        #expect(pacer.position + pacer.pendingCount - 17_600 == 4800)
        #expect(pacer.droppedSamples == 40_960)  // 45952 pending, 4992 kept up to 100 ms past 17600
        // The newest audio is kept: the next frame continues after the dropped stretch.
        let next = releaseAll(&pacer, upTo: pacer.target(afterFrame: 11))
        #expect(next.map(\.position) == [17_408])
        #expect(next.first?.planes[0][0] == Float(1024 + 2048 + pacer.droppedSamples))
    }
}
