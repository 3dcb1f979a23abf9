import Foundation
import Testing
@testable import StageHLS

@Suite struct HLSChunkStreamTests {
    let part = HLSChunk(kind: .part, rendition: 1, duration: 0.33333, independent: true, startsSegment: true,
                        programDateMillis: 1_700_000_000_123, bytes: Array(0..<200).map { UInt8($0) })

    @Test func roundTripsWhateverTheSplit() throws {
        let stream = HLSChunkStream.encode(HLSChunk(kind: .initialization, rendition: 0, bytes: [1, 2, 3])) + HLSChunkStream.encode(part)
            + HLSChunkStream.encode(HLSChunk(kind: .end, rendition: 0))
        for step in [1, 7, 64, stream.count] {
            var reader = HLSChunkReader()
            var chunks: [HLSChunk] = []
            var index = 0
            while index < stream.count {
                chunks += try reader.feed(stream[index..<min(index + step, stream.count)])
                index += step
            }
            #expect(chunks.count == 3)
            #expect(chunks[0] == HLSChunk(kind: .initialization, rendition: 0, bytes: [1, 2, 3]))
            #expect(chunks[1] == part)
            #expect(chunks[2].kind == .end)
        }
    }

    @Test(arguments: [
        ("not json\n", "not a JSON object"),
        ("{\"kind\":\"part\",\"rendition\":0,\"size\":4}\nabcd", "duration"),
        ("{\"kind\":\"part\",\"rendition\":0,\"size\":4,\"duration\":-1}\nabcd", "duration"),
        ("{\"kind\":\"part\",\"rendition\":0,\"size\":0,\"duration\":0.3}\n", "size: a part has bytes"),
        ("{\"kind\":\"part\",\"rendition\":0,\"size\":1,\"duration\":0.3,\"startsSegment\":true}\nx", "independent"),
        ("{\"kind\":\"init\",\"rendition\":9,\"size\":1}\nx", "rendition"),
        ("{\"kind\":\"init\",\"rendition\":0,\"size\":-5}\n", "size"),
        ("{\"kind\":\"init\",\"rendition\":0,\"size\":99999999999}\n", "size"),
        ("{\"kind\":\"bogus\",\"rendition\":0,\"size\":1}\nx", "not a JSON object"),
        ("{\"kind\":\"init\",\"rendition\":0}\n", "not a JSON object"),
    ])
    func refusesMalformedHeaders(text: String, reason: String) {
        var reader = HLSChunkReader()
        #expect {
            _ = try reader.feed(Array(text.utf8))
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    @Test func refusesAHeaderWithoutNewlinePastTheLimit() throws {
        var reader = HLSChunkReader()
        #expect(try reader.feed([UInt8](repeating: 0x7B, count: 100)).isEmpty)
        #expect(throws: HLSChunkStreamError.headerTooLong(limit: HLSChunkStream.maxHeaderBytes)) {
            _ = try reader.feed([UInt8](repeating: 0x7B, count: HLSChunkStream.maxHeaderBytes))
        }
    }

    @Test func waitsForTheWholePayload() throws {
        var reader = HLSChunkReader()
        let bytes = HLSChunkStream.encode(part)
        #expect(try reader.feed(bytes.dropLast()).isEmpty)
        #expect(try reader.feed([bytes.last!]) == [part])
    }

    @Test func survivesRandomBytes() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            var reader = HLSChunkReader()
            let bytes = (0..<Int.random(in: 0..<300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = try? reader.feed(bytes)
        }
    }
}
