/// Reads back the fragments the muxer wrote (ISO/IEC 14496-12 §8.8): per track, its `tfdt`,
/// sample count, summed duration, and the first sample's bytes.
struct CMAFFragmentInfo {
    struct Track {
        var trackID: UInt32
        var baseDecodeTime: UInt64
        var sampleCount: Int
        var duration: UInt64
        /// Offset of the first sample in the fragment's bytes, and its size.
        var firstSampleOffset: Int
        var firstSampleSize: Int
    }

    var tracks: [Track] = []

    init?(_ bytes: [UInt8]) {
        var offset = 0
        while offset + 8 <= bytes.count {
            let size = Int(Self.u32(bytes, offset))
            guard size >= 8, offset + size <= bytes.count else { return nil }
            if Self.type(bytes, offset) == "moof" {
                guard parseMoof(bytes, start: offset, end: offset + size) else { return nil }
            }
            offset += size
        }
    }

    func track(_ id: UInt32) -> Track? { tracks.first { $0.trackID == id } }

    private mutating func parseMoof(_ b: [UInt8], start: Int, end: Int) -> Bool {
        for (type, at, size) in Self.children(b, from: start + 8, to: end) where type == "traf" {
            var track = Track(trackID: 0, baseDecodeTime: 0, sampleCount: 0, duration: 0, firstSampleOffset: 0, firstSampleSize: 0)
            var defaultDuration: UInt32 = 0, defaultSize: UInt32 = 0
            for (child, c, _) in Self.children(b, from: at + 8, to: at + size) {
                let flags = Self.u32(b, c + 8) & 0xFFFFFF
                switch child {
                case "tfhd":
                    track.trackID = Self.u32(b, c + 12)
                    var p = c + 16
                    if flags & 0x1 != 0 { p += 8 }
                    if flags & 0x2 != 0 { p += 4 }
                    if flags & 0x8 != 0 { defaultDuration = Self.u32(b, p); p += 4 }
                    if flags & 0x10 != 0 { defaultSize = Self.u32(b, p); p += 4 }
                case "tfdt":
                    track.baseDecodeTime = b[c + 8] == 1
                        ? UInt64(Self.u32(b, c + 12)) << 32 | UInt64(Self.u32(b, c + 16)) : UInt64(Self.u32(b, c + 12))
                case "trun":
                    let count = Int(Self.u32(b, c + 12))
                    var p = c + 16
                    var dataOffset = 0
                    if flags & 0x1 != 0 { dataOffset = Int(Int32(bitPattern: Self.u32(b, p))); p += 4 }
                    if flags & 0x4 != 0 { p += 4 }
                    for index in 0..<count {
                        var duration = defaultDuration, size = defaultSize
                        if flags & 0x100 != 0 { duration = Self.u32(b, p); p += 4 }
                        if flags & 0x200 != 0 { size = Self.u32(b, p); p += 4 }
                        if flags & 0x400 != 0 { p += 4 }
                        if flags & 0x800 != 0 { p += 4 }
                        track.duration += UInt64(duration)
                        if index == 0 && track.sampleCount == 0 {
                            track.firstSampleOffset = start + dataOffset  // default-base-is-moof
                            track.firstSampleSize = Int(size)
                        }
                    }
                    track.sampleCount += count
                default: break
                }
            }
            tracks.append(track)
        }
        return true
    }

    static func u32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
    }

    static func type(_ b: [UInt8], _ at: Int) -> String { String(decoding: b[at + 4..<at + 8], as: UTF8.self) }

    static func children(_ b: [UInt8], from: Int, to: Int) -> [(String, Int, Int)] {
        var result: [(String, Int, Int)] = []
        var offset = from
        while offset + 8 <= to {
            let size = Int(u32(b, offset))
            guard size >= 8, offset + size <= to else { break }
            result.append((type(b, offset), offset, size))
            offset += size
        }
        return result
    }

    /// The NAL unit types (ITU-T H.264 §7.4.1) of a length-prefixed (`avcC`, 4-byte lengths) sample.
    static func nalTypes(_ b: [UInt8], offset: Int, size: Int) -> [Int] {
        var types: [Int] = []
        var p = offset
        while p + 4 < offset + size {
            let length = Int(u32(b, p))
            guard length > 0, p + 4 + length <= offset + size else { break }
            types.append(Int(b[p + 4] & 0x1F))
            p += 4 + length
        }
        return types
    }
}
