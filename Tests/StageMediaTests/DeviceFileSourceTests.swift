import Testing
@testable import StageDevices
@testable import StageMedia

@Suite("File camera and microphone")
struct DeviceFileSourceTests {
    typealias T = FileTestSupport

    static func y4mReader(frames count: Int) throws -> Y4MReader {
        let frames = (0..<count).map { VideoFrame(width: 16, height: 16, luma: UInt8(20 + $0)) }
        return try Y4MReader(bytes: T.y4m(Y4MHeader(width: 16, height: 16), frames))
    }

    @Test("a camera file ends, or loops")
    func camera() throws {
        var once = FileCamera(reader: try Self.y4mReader(frames: 3))
        let lumas = try (0..<4).map { _ in try once.nextFrame(captureTimeMicros: 0)?.y.first }
        #expect(lumas == [20, 21, 22, nil])

        var looping = FileCamera(reader: try Self.y4mReader(frames: 3), loop: true)
        let looped = try (0..<7).map { try looping.nextFrame(captureTimeMicros: UInt64($0)) }
        #expect(looped.map { $0?.y.first } == [20, 21, 22, 20, 21, 22, 20])
        #expect(looped.map { $0?.captureTimeMicros } == (0..<7).map { UInt64($0) })

        var empty = FileCamera(reader: try Self.y4mReader(frames: 0), loop: true)
        #expect(try empty.nextFrame(captureTimeMicros: 0) == nil)
    }

    static func wavReader(samples: [Int16], channels: UInt16 = 1) throws -> WAVReader {
        try WAVReader(bytes: T.riff(T.chunk("fmt ", T.fmtBody(channels: channels)), T.chunk("data", T.pcmBytes(samples))))
    }

    @Test("a microphone file gives 960-sample frames, zero-pads the last, then ends")
    func microphone() throws {
        let samples = (0..<2500).map { Int16($0) }
        var microphone = FileMicrophone(reader: try Self.wavReader(samples: samples))
        let first = try #require(try microphone.nextFrame(captureTimeMicros: 1))
        #expect(first.samples == Array(samples[0..<960]) && first.captureTimeMicros == 1)
        #expect(try microphone.nextFrame(captureTimeMicros: 2)?.samples == Array(samples[960..<1920]))
        #expect(try microphone.nextFrame(captureTimeMicros: 3)?.samples == Array(samples[1920...]) + [Int16](repeating: 0, count: 380))
        #expect(try microphone.nextFrame(captureTimeMicros: 4) == nil)
    }

    @Test("a looping microphone file wraps without a gap")
    func microphoneLoop() throws {
        let samples = (0..<1000).flatMap { [Int16($0), Int16(-$0)] }
        var microphone = FileMicrophone(reader: try Self.wavReader(samples: samples, channels: 2), loop: true)
        var played: [Int16] = []
        for _ in 0..<5 { played += try #require(try microphone.nextFrame(captureTimeMicros: 0)).samples }
        #expect(played.count == 5 * 960 * 2)
        var expected: [Int16] = []
        for index in 0..<(5 * 960) { expected += [Int16(index % 1000), Int16(-(index % 1000))] }
        #expect(played == expected)

        var empty = FileMicrophone(reader: try Self.wavReader(samples: []), loop: true)
        #expect(try empty.nextFrame(captureTimeMicros: 0) == nil)
    }
}
