import Testing
@testable import StageDevices

/// `stage devices` reads a camera's formats from FFmpeg's `-list_formats all` output. No camera
/// is attached here, so the lines are recorded ones, in the layout libavdevice/v4l2.c prints.
@Suite struct WebcamListTests {
    static let recorded = """
        [video4linux2,v4l2 @ 0x55d0c3a4f6c0] Raw       :     yuyv422 :           YUYV 4:2:2 : 640x480 352x288 320x240 1280x720
        [video4linux2,v4l2 @ 0x55d0c3a4f6c0] Compressed:       mjpeg :          Motion-JPEG : 640x480 1280x720 1920x1080
        [video4linux2,v4l2 @ 0x55d0c3a4f6c0] Raw       :     yuv420p :     Planar YUV 4:2:0 : {16-1920, 1}x{16-1080, 1}
        [video4linux2,v4l2 @ 0x55d0c3a4f6c0] Raw       : Unsupported :                 Y10B :
        /dev/video0: Immediate exit requested
        garbage without a bracket : x : y : z
        [x] Unknown : a : b : c
        """

    @Test func readsKindNameAndSizes() {
        let formats = WebcamList.parseFormats(Self.recorded)
        #expect(formats.map(\.pixelFormat) == ["yuyv422", "mjpeg", "yuv420p", "Unsupported"])
        #expect(formats.map(\.compressed) == [false, true, false, false])
        #expect(formats[0].sizes == ["640x480", "352x288", "320x240", "1280x720"])
        #expect(formats[1].sizes == ["640x480", "1280x720", "1920x1080"])
        #expect(formats[2].sizes == ["{16-1920,", "1}x{16-1080,", "1}"])
        #expect(formats[3].sizes.isEmpty)
    }

    @Test(arguments: ["", "[a] ", "[a] Raw", "[a] Raw :", "[a] Raw : : 640x480", ":::::", "[a] Compressed:mjpeg"])
    func malformedLinesAreSkipped(_ line: String) {
        #expect(WebcamList.parseFormats(line).isEmpty)
    }
}
