import Foundation

/// Just enough ISO BMFF (ISO/IEC 14496-12) to time a rendition's video samples: the video
/// track's id and timescale from the init section (`moov/trak/tkhd`, `mdia/mdhd`,
/// `mdia/hdlr`), and each fragment's samples from `moof/traf` (`tfhd`, `tfdt`, `trun`).
enum ComposeFragments {
    struct Track {
        var id: UInt32
        var timescale: UInt32
    }

    struct Sample {
        /// Decode time (= presentation time: no B-frames) in the track's timescale.
        var time: UInt64
        var duration: UInt32
    }

    /// The `vide` track of an init section.
    static func videoTrack(initSection bytes: [UInt8]) -> Track? {
        guard let moov = children(bytes, 0..<bytes.count).first(where: { $0.type == "moov" }) else { return nil }
        for trak in children(bytes, moov.body) where trak.type == "trak" {
            let boxes = children(bytes, trak.body)
            guard let tkhd = boxes.first(where: { $0.type == "tkhd" }),
                  let mdia = boxes.first(where: { $0.type == "mdia" }) else { continue }
            let media = children(bytes, mdia.body)
            guard let hdlr = media.first(where: { $0.type == "hdlr" }), let mdhd = media.first(where: { $0.type == "mdhd" }),
                  String(decoding: bytes[hdlr.body.lowerBound + 8..<hdlr.body.lowerBound + 12], as: UTF8.self) == "vide" else { continue }
            let tkhdVersion = bytes[tkhd.body.lowerBound]
            let id = be32(bytes, tkhd.body.lowerBound + (tkhdVersion == 1 ? 20 : 12))
            let mdhdVersion = bytes[mdhd.body.lowerBound]
            let timescale = be32(bytes, mdhd.body.lowerBound + (mdhdVersion == 1 ? 20 : 12))
            return Track(id: id, timescale: timescale)
        }
        return nil
    }

    /// The samples of `track` in a fragment (`moof`+`mdat` pairs, a part or a segment).
    static func samples(_ bytes: [UInt8], track: Track) -> [Sample] {
        var result: [Sample] = []
        for moof in children(bytes, 0..<bytes.count) where moof.type == "moof" {
            for traf in children(bytes, moof.body) where traf.type == "traf" {
                let boxes = children(bytes, traf.body)
                guard let tfhd = boxes.first(where: { $0.type == "tfhd" }),
                      be32(bytes, tfhd.body.lowerBound + 4) == track.id else { continue }
                let tfhdFlags = be32(bytes, tfhd.body.lowerBound) & 0xFFFFFF
                var offset = tfhd.body.lowerBound + 8
                if tfhdFlags & 0x1 != 0 { offset += 8 }
                if tfhdFlags & 0x2 != 0 { offset += 4 }
                let defaultDuration = tfhdFlags & 0x8 != 0 ? be32(bytes, offset) : 0
                var time: UInt64 = 0
                if let tfdt = boxes.first(where: { $0.type == "tfdt" }) {
                    time = bytes[tfdt.body.lowerBound] == 1 ? be64(bytes, tfdt.body.lowerBound + 4) : UInt64(be32(bytes, tfdt.body.lowerBound + 4))
                }
                for trun in boxes where trun.type == "trun" {
                    let flags = be32(bytes, trun.body.lowerBound) & 0xFFFFFF
                    let count = Int(be32(bytes, trun.body.lowerBound + 4))
                    var cursor = trun.body.lowerBound + 8
                    if flags & 0x1 != 0 { cursor += 4 }
                    if flags & 0x4 != 0 { cursor += 4 }
                    let fieldBytes = [0x100, 0x200, 0x400, 0x800].filter { flags & $0 != 0 }.count * 4
                    for _ in 0..<count {
                        guard cursor + fieldBytes <= trun.body.upperBound else { break }
                        let duration = flags & 0x100 != 0 ? be32(bytes, cursor) : defaultDuration
                        result.append(Sample(time: time, duration: duration))
                        time += UInt64(duration)
                        cursor += fieldBytes
                    }
                }
            }
        }
        return result
    }

    /// The boxes directly inside `range`: type and body (after the header).
    static func children(_ bytes: [UInt8], _ range: Range<Int>) -> [(type: String, body: Range<Int>)] {
        var result: [(String, Range<Int>)] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            var size = Int(be32(bytes, offset))
            var header = 8
            if size == 1, offset + 16 <= range.upperBound {
                size = Int(be64(bytes, offset + 8))
                header = 16
            } else if size == 0 {
                size = range.upperBound - offset
            }
            guard size >= header, offset + size <= range.upperBound else { break }
            result.append((String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self), offset + header..<offset + size))
            offset += size
        }
        return result
    }

    static func be32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        guard at + 4 <= bytes.count else { return 0 }
        return bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func be64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
        guard at + 8 <= bytes.count else { return 0 }
        return bytes[at..<at + 8].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
