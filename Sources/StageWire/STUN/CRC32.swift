/// CRC-32 as IEEE 802.3 defines it (reflected, polynomial 0xEDB88320, initial and final XOR
/// 0xFFFFFFFF): the checksum STUN's FINGERPRINT uses (RFC 8489 §14.7, which cites ITU V.42).
///
/// Table-driven, one byte per step. The check value of the ASCII bytes "123456789" is
/// 0xCBF43926.
public enum CRC32 {
    /// The reflected IEEE 802.3 polynomial.
    public static let polynomial: UInt32 = 0xEDB8_8320

    /// 256 entries: the CRC of each byte value, computed once.
    static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 {
            crc = crc & 1 == 1 ? (crc >> 1) ^ polynomial : crc >> 1
        }
        return crc
    }

    /// The CRC-32 of `bytes`.
    public static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        table.withUnsafeBufferPointer { table in
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in bytes {
                crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
            }
            return crc ^ 0xFFFF_FFFF
        }
    }

    /// The CRC-32 of a byte collection.
    public static func checksum<Bytes: Sequence>(_ bytes: Bytes) -> UInt32 where Bytes.Element == UInt8 {
        if let result = bytes.withContiguousStorageIfAvailable({ checksum(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return checksum(Array(bytes))
    }
}
