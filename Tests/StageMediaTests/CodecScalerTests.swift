import Testing
@testable import StageMedia

@Suite("I420 scaling")
struct CodecScalerTests {
    @Test("halving averages each 2×2 block, with rounding")
    func halvingAverages() {
        let plane: [UInt8] = [
            0, 2, 10, 10,
            4, 6, 20, 21,
            100, 100, 255, 255,
            100, 101, 255, 254,
        ]
        #expect(VideoScaler.scalePlane(plane, 4, 4, 2, 2) == [3, 15, 100, 255])
    }

    @Test("odd sizes: every source sample is covered and plane sizes follow (w+1)/2")
    func oddSizes() {
        let frame = VideoFrame(width: 321, height: 181, luma: 77, chroma: 99)
        let half = VideoScaler.scale(frame, downBy: 2)
        #expect(half.width == 160 && half.height == 90)
        #expect(half.u.count == 80 * 45)
        #expect(Set(half.y) == [77] && Set(half.u) == [99] && Set(half.v) == [99])
        let quarter = VideoScaler.scale(frame, downBy: 4)
        #expect(quarter.width == 80 && quarter.height == 45 && quarter.u.count == 40 * 23)
        // The last column (index 320) must reach the output: make it distinct.
        var marked = frame
        for row in 0..<181 { marked.y[row * 321 + 320] = 255 }
        let scaled = VideoScaler.scale(marked, downBy: 2)
        #expect(scaled.y[159] > 77)
        #expect(scaled.y[158] == 77)
    }

    @Test("the same size returns the frame unchanged; scaledSize never reaches 0")
    func identityAndFloor() {
        let frame = CodecTestMedia.movingFrame(width: 64, height: 36, index: 1)
        #expect(VideoScaler.scale(frame, toWidth: 64, height: 36) == frame)
        #expect(VideoScaler.scaledSize(width: 3, height: 2, downBy: 4) == (1, 1))
        #expect(VideoScaler.scale(frame, downBy: 1) == frame)
    }

    @Test("capture time is kept")
    func captureTime() {
        let frame = VideoFrame(width: 8, height: 8, captureTimeMicros: 1234)
        #expect(VideoScaler.scale(frame, downBy: 2).captureTimeMicros == 1234)
    }
}
