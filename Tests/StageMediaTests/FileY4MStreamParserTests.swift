import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import StageDevices
@testable import StageMedia

@Suite("Y4M stream parser (live pipes)")
struct FileY4MStreamParserTests {
    /// Feeds `bytes` in pieces of `piece` bytes; returns the frames, and the error if one was thrown.
    static func parse(_ bytes: [UInt8], piece: Int) -> (frames: [VideoFrame], error: Y4MError?) {
        var parser = Y4MStreamParser()
        var frames: [VideoFrame] = []
        var offset = 0
        repeat {
            parser.append(bytes[offset..<min(bytes.count, offset + piece)])
            offset += piece
            do {
                while let frame = try parser.nextFrame() { frames.append(frame) }
            } catch {
                return (frames, error)
            }
        } while offset < bytes.count
        return (frames, nil)
    }

    /// What a stream that has not ended yet cannot know: more bytes may still come.
    static func isTruncation(_ error: Y4MError) -> Bool {
        switch error {
        case .empty, .truncatedHeader, .truncatedFrameHeader, .truncatedFrame: true
        default: false
        }
    }

    @Test("malformed bytes: the file reader's error, whatever the pieces; a truncation waits for more",
          arguments: FileY4MReaderTests.malformed, [1, 7, 1 << 20])
    func malformed(_ test: FileY4MReaderTests.Case, piece: Int) {
        let (frames, error) = Self.parse(test.bytes, piece: piece)
        if Self.isTruncation(test.expected) {
            #expect(error == nil, "\(test.name): \(String(describing: error))")
            #expect(frames.count == (test.name == "second frame truncated" ? 1 : 0))
        } else if case .notYUV4MPEG2(let prefix)? = error, case .notYUV4MPEG2(let whole) = test.expected {
            // Refused as soon as the bytes so far cannot start a header: it names what it saw.
            #expect(!prefix.isEmpty && whole.starts(with: prefix), "\(test.name): \(prefix)")
        } else {
            #expect(error.map(FileY4MReaderTests.withoutRule) == test.expected, "\(test.name)")
        }
    }

    @Test("valid streams give the file reader's frames, whatever the pieces", arguments: [1, 5, 13, 4096])
    func sameFramesAsTheFileReader(piece: Int) throws {
        let header = Y4MHeader(width: 5, height: 3, frameRate: .init(30, 1), interlacing: .progressive, pixelAspect: nil)
        let pictures: [VideoFrame] = (0..<4).map { (n: Int) -> VideoFrame in
            let luma: [UInt8] = (0..<15).map { UInt8(n * 16 + $0) }
            return VideoFrame(width: 5, height: 3, y: luma, u: [UInt8](repeating: UInt8(n), count: 6),
                              v: [UInt8](repeating: UInt8(200 + n), count: 6))
        }
        let bytes = FileTestSupport.y4m(header, pictures, frameParameters: " Ip")
        let expected = try FileY4MReaderTests.readAll(bytes)
        let (frames, error) = Self.parse(bytes, piece: piece)
        #expect(error == nil)
        #expect(frames.count == 4)
        let planes: [[[UInt8]]] = frames.map { [$0.y, $0.u, $0.v] }
        let expectedPlanes: [[[UInt8]]] = expected.map { [$0.y, $0.u, $0.v] }
        #expect(planes == expectedPlanes)
    }

    @Test("after an error every call throws it again, whatever comes next")
    func errorSticks() {
        var parser = Y4MStreamParser()
        parser.append(Array("YUV4MPEG2 W4 H2\nFRAMX\n".utf8))
        #expect(throws: Y4MError.missingFrameMarker(frame: 0, offset: 16)) { try parser.nextFrame() }
        parser.append(Array("FRAME\n".utf8) + [UInt8](repeating: 0, count: 12))
        #expect(throws: Y4MError.missingFrameMarker(frame: 0, offset: 16)) { try parser.nextFrame() }
    }

    @Test("a pipe camera takes frames as the producer writes them, the newest first, and reports the end")
    func pipeCamera() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("y4m-\(UUID().uuidString)").path
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        let header = Y4MHeader(width: 4, height: 2, frameRate: .init(30, 1), interlacing: nil, pixelAspect: nil)
        let picture: @Sendable (UInt8) -> VideoFrame = { n in
            VideoFrame(width: 4, height: 2, y: [UInt8](repeating: n, count: 8), u: [1, 2], v: [3, 4])
        }
        let writer = Thread {
            let descriptor = open(path, O_WRONLY)
            let first = FileTestSupport.y4m(header, [picture(1)])
            _ = first.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            usleep(300_000)
            let more = FileTestSupport.y4m(header, [picture(2), picture(3)]).dropFirst(header.serialized().count)
            _ = Array(more).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            usleep(300_000)
            close(descriptor)
        }
        writer.start()
        let camera = try Y4MPipeCamera(path: path)
        #expect(camera.width == 4 && camera.height == 2 && camera.framerate == 30)
        var seen: [UInt8] = []
        let deadline = ContinuousClock.now + .seconds(20)
        while !camera.ended, ContinuousClock.now < deadline {
            if let frame = camera.nextFrame(captureTimeMicros: 7) {
                #expect(frame.captureTimeMicros == 7)
                seen.append(frame.y[0])
            }
            usleep(20_000)
        }
        #expect(camera.ended)
        // Frame 2 may be replaced by 3 before it is asked for; 1 and 3 are always taken.
        #expect(seen.first == 1 && seen.last == 3 && seen == seen.sorted())
        #expect(camera.counts.read == 3)
    }

    @Test("a FIFO nobody writes to is an error naming it after the header timeout; a missing path at once")
    func silentOrMissing() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("y4m-\(UUID().uuidString)").path
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        #expect { try Y4MPipeCamera(path: path, headerTimeout: .milliseconds(300)) } throws: { error in
            "\(error)".contains(path) && "\(error)".contains("no YUV4MPEG2 header")
        }
        #expect { try Y4MPipeCamera(path: path + "-missing") } throws: { error in
            "\(error)".contains(path + "-missing") && "\(error)".contains("No such file")
        }
    }
}
