import Foundation
import Testing
@testable import StageMedia

@Suite("Ogg Opus writer (RFC 7845, RFC 3533)")
struct FileOggOpusWriterTests {
    typealias T = FileTestSupport

    /// A 20 ms CELT fullband mono silence frame (TOC 0xF8: config 31, code 0), as WebRTC
    /// stacks send for silence.
    static let silence: [UInt8] = [0xF8, 0xFF, 0xFE]

    struct Page {
        var headerType: UInt8
        var granulePosition: UInt64
        var serialNumber: UInt32
        var sequenceNumber: UInt32
        var crcMatches: Bool
        var packets: [[UInt8]]
    }

    /// Splits a file into pages and packets, checking each CRC (RFC 3533 §6). Test-only reader.
    static func pages(_ bytes: [UInt8]) throws -> [Page] {
        var pages: [Page] = []
        var offset = 0
        while offset < bytes.count {
            try #require(offset + 27 <= bytes.count && Array(bytes[offset..<(offset + 4)]) == Array("OggS".utf8))
            #expect(bytes[offset + 4] == 0)  // version
            let count = Int(bytes[offset + 26])
            let lacing = Array(bytes[(offset + 27)..<(offset + 27 + count)])
            let length = 27 + count + lacing.reduce(0) { $0 + Int($1) }
            var page = Array(bytes[offset..<(offset + length)])
            let crc = MediaFileLE.uint32(page, 22)
            page.replaceSubrange(22..<26, with: [0, 0, 0, 0])
            var packets: [[UInt8]] = []
            var current: [UInt8] = []
            var position = 27 + count
            for value in lacing {
                current += page[position..<(position + Int(value))]
                position += Int(value)
                if value < 255 {
                    packets.append(current)
                    current = []
                }
            }
            #expect(current.isEmpty, "this writer never continues a packet on the next page")
            pages.append(Page(
                headerType: page[5],
                granulePosition: UInt64(MediaFileLE.uint32(page, 6)) | UInt64(MediaFileLE.uint32(page, 10)) << 32,
                serialNumber: MediaFileLE.uint32(page, 14), sequenceNumber: MediaFileLE.uint32(page, 18),
                crcMatches: OggCRC32.checksum(page) == crc, packets: packets))
            offset += length
        }
        return pages
    }

    @Test("CRC-32 of Ogg: check value of \"123456789\"")
    func crcCheckValue() {
        #expect(OggCRC32.checksum(Array("123456789".utf8)) == 0x89A1_897F)
        #expect(OggCRC32.checksum([]) == 0)
    }

    @Test("packet durations from the TOC byte (RFC 6716 §3.1)", arguments: [
        ([0xF8], 960),  // CELT FB 20 ms, one frame
        ([0xFC, 0x00], 960),  // stereo flag does not change it
        ([0x08], 960),  // SILK NB 20 ms
        ([0x18], 2880),  // SILK NB 60 ms
        ([0x70], 480),  // Hybrid SWB 10 ms
        ([0x78], 960),  // Hybrid SWB 20 ms
        ([0xE0], 120),  // CELT 2.5 ms
        ([0xF9], 1920),  // code 1: two frames
        ([0xFA, 1, 2], 1920),  // code 2: two frames
        ([0xFB, 0x03], 2880),  // code 3: three frames
        ([0xE3, 0x30], 5760),  // code 3: 48 × 2.5 ms = 120 ms
    ] as [([UInt8], Int)])
    func packetDuration(packet: [UInt8], samples: Int) throws {
        #expect(try OggOpusWriter.sampleCount(ofPacket: packet) == samples)
    }

    @Test("invalid packets are refused", arguments: [[], [0xFB], [0xFB, 0x00], [0xFB, 0x07], [0x1B, 0x03]] as [[UInt8]])
    func invalidPacket(packet: [UInt8]) {
        #expect(throws: MediaWriterError.self) { try OggOpusWriter.sampleCount(ofPacket: packet) }
    }

    @Test("header pages, granule positions, sequence numbers, flags and CRCs")
    func pageStructure() throws {
        let path = T.temporaryPath(".opus")
        defer { T.remove(path) }
        let writer = try OggOpusWriter(path: path, channels: 2, preSkip: 312, serialNumber: 0xC0FFEE, comments: ["TITLE=stage"])
        for _ in 0..<120 { try writer.write(packet: Self.silence) }
        #expect(writer.granulePosition == 120 * 960)
        try writer.close()
        try writer.close()
        #expect(throws: MediaWriterError.closed(path: path)) { try writer.write(packet: Self.silence) }

        let pages = try Self.pages(try T.contents(of: path))
        // OpusHead, OpusTags, then one-second pages: 50 + 50 + 20 packets.
        #expect(pages.map(\.packets.count) == [1, 1, 50, 50, 20])
        #expect(pages.map(\.sequenceNumber) == [0, 1, 2, 3, 4])
        #expect(pages.map(\.headerType) == [0x02, 0, 0, 0, 0x04])
        #expect(pages.map(\.granulePosition) == [0, 0, 48_000, 96_000, 115_200])
        #expect(pages.allSatisfy { $0.serialNumber == 0xC0FFEE && $0.crcMatches })

        // RFC 7845 §5.1: magic, version 1, channels, pre-skip, input rate, gain 0, family 0.
        let head = pages[0].packets[0]
        #expect(head == Array("OpusHead".utf8) + [1, 2] + T.le(UInt16(312)) + T.le(UInt32(48_000)) + [0, 0, 0])
        // §5.2: magic, vendor, one comment.
        let tags = pages[1].packets[0]
        #expect(tags == Array("OpusTags".utf8) + T.le(UInt32(10)) + Array("Proscenium".utf8) + T.le(UInt32(1)) + T.le(UInt32(11)) + Array("TITLE=stage".utf8))
        #expect(pages[2...].allSatisfy { $0.packets.allSatisfy { $0 == Self.silence } })
    }

    @Test("large packets: lacing of 255-byte multiples, pages end before 255 lacing values")
    func lacing() throws {
        let path = T.temporaryPath(".opus")
        defer { T.remove(path) }
        let writer = try OggOpusWriter(path: path)
        let sizes = [255, 510, 1, 600, 254] + [Int](repeating: 1275, count: 60)
        let packets = sizes.enumerated().map { index, size in [0xF8] + [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: size - 1) }
        for packet in packets { try writer.write(packet: packet) }
        #expect(throws: MediaWriterError.self) { try writer.write(packet: [0xF8] + [UInt8](repeating: 0, count: 70_000)) }
        try writer.close()

        let pages = try Self.pages(try T.contents(of: path))
        #expect(Array(pages.dropFirst(2).flatMap(\.packets)) == packets)
        #expect(pages.count > 3)  // 60 × 6 lacing values cannot share one page
        var granule: UInt64 = 0
        for page in pages.dropFirst(2) {
            granule += UInt64(page.packets.count * 960)
            #expect(page.granulePosition == granule)
        }
    }

    @Test("no audio: the EOS page is empty")
    func noAudio() throws {
        let path = T.temporaryPath(".opus")
        defer { T.remove(path) }
        try OggOpusWriter(path: path).close()
        let pages = try Self.pages(try T.contents(of: path))
        #expect(pages.map(\.packets.count) == [1, 1, 0])
        #expect(pages.last?.headerType == 0x04)
        #expect(throws: MediaWriterError.self) { try OggOpusWriter(path: path, channels: 3) }
    }

    @Test("ffprobe and FFmpeg's decoder accept the file: codec, duration, clean decode",
          .enabled(if: FileTestSupport.ffmpeg != nil && FileTestSupport.ffprobe != nil, "\(FileTestSupport.skipMessage)"))
    func ffprobeValidates() throws {
        let path = T.temporaryPath(".ogg")
        defer { T.remove(path) }
        let writer = try OggOpusWriter(path: path)
        for _ in 0..<100 { try writer.write(packet: Self.silence) }
        try writer.close()

        let probe = try T.probe(path)
        #expect(probe["codec_name"] == "opus", "\(probe)")
        #expect(probe["sample_rate"] == "48000" && probe["channels"] == "1", "\(probe)")
        // 2 s of packets less the 312-sample pre-skip.
        #expect(abs((Double(probe["duration"] ?? "") ?? 0) - (2.0 - 312.0 / 48_000)) < 0.1, "\(probe)")
        #expect(probe["stderr"] == "", "\(probe)")
        let decode = try T.run(T.ffmpeg!, ["-v", "error", "-i", path, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.error.isEmpty, "\(decode.error)")
    }
}
