/// The top-level boxes of an ISO base media file (ISO/IEC 14496-12 §4.2: a 32-bit size, a
/// four-character type, and a 64-bit `largesize` when size is 1), enough to check that the
/// muxer wrote `ftyp`+`moov` for the init segment (CMAF header, ISO/IEC 23000-19 §7.3.1) and
/// `moof`+`mdat` pairs for each fragment (§7.3.2.4).
public enum CMAFBoxes {
    /// The types of the top-level boxes in `bytes`, in order; `nil` if a size runs past the end.
    public static func topLevelTypes(_ bytes: [UInt8]) -> [String]? {
        var types: [String] = []
        var offset = 0
        while offset < bytes.count {
            guard bytes.count - offset >= 8 else { return nil }
            var size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            if size == 1 {
                guard bytes.count - offset >= 16 else { return nil }
                size = bytes[offset + 8..<offset + 16].reduce(0) { $0 << 8 | Int($1) }
            } else if size == 0 {
                size = bytes.count - offset  // extends to the end of the file
            }
            guard size >= 8, size <= bytes.count - offset else { return nil }
            types.append(type)
            offset += size
        }
        return types
    }
}
