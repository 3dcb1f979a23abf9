import Testing
@testable import StageDevices
@testable import StageMedia

@Suite("Synthetic camera")
struct DeviceSyntheticCameraTests {
    @Test("frames have the asked size, carry their number and capture time, and move")
    func framesAndMotion() throws {
        var camera = try SyntheticCamera(width: 640, height: 360, framerate: 30)
        #expect(camera.width == 640 && camera.height == 360 && camera.framerate == 30)
        var previous: VideoFrame?
        for number in 0..<10 {
            let time = 1_000 + UInt64(number) * 33_333
            let next = camera.nextFrame(captureTimeMicros: time)
            let frame = try #require(next)
            #expect(frame.width == 640 && frame.height == 360 && frame.captureTimeMicros == time)
            let stamp = try #require(FrameStamp.read(from: frame))
            #expect(stamp.frameNumber == UInt32(number) && stamp.captureTimeMicros == time)
            if let previous {
                // Below the stamp band, the box and the ramp move every frame.
                let band = FrameStamp.bandHeight(forWidth: 640) * 640
                let changed = zip(frame.y[band...], previous.y[band...]).filter { $0 != $1 }.count
                #expect(changed > 640 * 10, "frame \(number) changed only \(changed) luma samples")
            }
            previous = frame
        }
        #expect(camera.frameNumber == 10)
    }

    @Test("a frame is a function of its number and time")
    func deterministic() throws {
        var camera = try SyntheticCamera(width: 320, height: 240)
        for number in 0..<5 {
            let frame = camera.nextFrame(captureTimeMicros: UInt64(number) * 7)
            #expect(frame == camera.frame(number: UInt32(number), captureTimeMicros: UInt64(number) * 7))
        }
    }

    @Test("shows the colour bars under the stamp")
    func colourBars() throws {
        let frame = try SyntheticCamera(width: 1280, height: 720).frame(number: 0, captureTimeMicros: 0)
        // Sample the middle of the bar area, at each bar's centre, away from the box (at the left
        // on frame 0) by taking the lowest bar row.
        let chromaRow = 300
        for (index, bar) in SyntheticCamera.bars.enumerated().dropFirst(2) {
            let column = (2 * index + 1) * 640 / 14
            #expect(frame.u[chromaRow * 640 + column] == bar.u && frame.v[chromaRow * 640 + column] == bar.v, "bar \(index)")
        }
    }

    @Test("small odd sizes work; sizes and rates out of range are refused")
    func sizes() throws {
        var small = try SyntheticCamera(width: 17, height: 16)
        #expect(small.nextFrame(captureTimeMicros: 0)?.u.count == 9 * 8)
        for (width, height) in [(8, 8), (5000, 100), (100, 5000), (4096, 4096), (0, 720)] {
            #expect(throws: MediaDeviceError.invalidVideoSize(width: width, height: height)) { try SyntheticCamera(width: width, height: height) }
        }
        for rate in [0, -1, 241, .nan] as [Double] {
            #expect(throws: MediaDeviceError.self) { try SyntheticCamera(framerate: rate) }
        }
    }
}
