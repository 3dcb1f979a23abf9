/// One Ogg page (RFC 3533 §6): a 27-byte header, a segment table of lacing values, then the
/// packet data. Packets are split into 255-byte segments; a lacing value below 255 ends a packet
/// (a packet of a multiple of 255 bytes ends with a 0).
///
/// ```
///  0 "OggS"  4 version (0)  5 header type (0x01 continued, 0x02 BOS, 0x04 EOS)
///  6 granule position (64-bit)  14 bitstream serial number  18 page sequence number
/// 22 CRC-32  26 page segments  27 segment table …  then the data
/// ```
struct OggPage {
    static let continued: UInt8 = 0x01
    static let beginningOfStream: UInt8 = 0x02
    static let endOfStream: UInt8 = 0x04
    /// Lacing values a page can hold.
    static let maximumSegments = 255

    var headerType: UInt8
    var granulePosition: UInt64
    var serialNumber: UInt32
    var sequenceNumber: UInt32
    /// Whole packets only: this writer never splits a packet across pages.
    var packets: [[UInt8]]

    /// Lacing values for a packet of `count` bytes.
    static func segmentCount(forPacketOf count: Int) -> Int { count / 255 + 1 }

    /// The page bytes, CRC included.
    func serialized() -> [UInt8] {
        var lacing: [UInt8] = []
        for packet in packets {
            lacing += [UInt8](repeating: 255, count: packet.count / 255)
            lacing.append(UInt8(packet.count % 255))
        }
        precondition(lacing.count <= Self.maximumSegments, "callers keep pages within 255 lacing values")
        var page: [UInt8] = Array("OggS".utf8)
        page.append(0)
        page.append(headerType)
        MediaFileLE.append(granulePosition, to: &page)
        MediaFileLE.append(serialNumber, to: &page)
        MediaFileLE.append(sequenceNumber, to: &page)
        MediaFileLE.append(UInt32(0), to: &page)
        page.append(UInt8(lacing.count))
        page += lacing
        for packet in packets { page += packet }
        let crc = OggCRC32.checksum(page)
        page[22] = UInt8(crc & 0xFF)
        page[23] = UInt8(crc >> 8 & 0xFF)
        page[24] = UInt8(crc >> 16 & 0xFF)
        page[25] = UInt8(crc >> 24)
        return page
    }
}

/// The Ogg page checksum (RFC 3533 §6, libogg `framing.c`): CRC-32 with polynomial 0x04C11DB7,
/// not reflected, initial value 0, no final XOR, over the whole page with its CRC field zeroed.
/// The check value of the ASCII bytes "123456789" is 0x89A1897F.
public enum OggCRC32 {
    public static let polynomial: UInt32 = 0x04C1_1DB7

    static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index) << 24
        for _ in 0..<8 {
            crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ polynomial : crc << 1
        }
        return crc
    }

    public static func checksum(_ bytes: [UInt8]) -> UInt32 {
        table.withUnsafeBufferPointer { table in
            var crc: UInt32 = 0
            for byte in bytes {
                crc = (crc << 8) ^ table[Int((crc >> 24) ^ UInt32(byte))]
            }
            return crc
        }
    }
}
