/// A machine-readable stamp across the top of a picture carrying a frame number and a capture
/// time, so a receiver can measure loss, order and glass-to-glass latency from pixels alone.
///
/// It is built to survive lossy VP8 at low bitrates and downscaling by 4 (the 180p simulcast
/// layer of a 720p source): a band of 3 rows × 40 square cells spanning the full width (32 px
/// cells at 1280 wide, 8 px at 320), each cell all black (luma 16) or all white (235):
///
/// ```
/// row r: [white][black][38 data cells]      3 rows → 114 data cells
/// data : frame number (32 bits, big-endian) · capture time µs (64) · CRC-16 (16) · 1 · 0
/// ```
///
/// The geometry is relative to the width, so the reader needs no knowledge of the original size.
/// Each row's white and black reference cells set its threshold (so brightness and contrast
/// shifts do not matter); a cell is read as the mean of its inner half, away from blurred edges.
/// The CRC is CRC-16/CCITT-FALSE (polynomial 0x1021, initial 0xFFFF), which detects every error
/// of up to 3 bits in the 96-bit payload: a damaged stamp reads as `nil`, not as a wrong number.
public enum FrameStamp {
    public static let columns = 40
    public static let rows = 3
    /// The white and black reference cells at the start of each row.
    static let referenceColumns = 2
    static let white: UInt8 = 235
    static let black: UInt8 = 16
    /// Reference cells closer than this in mean luma make the stamp unreadable.
    static let minimumContrast = 40
    /// Payload bytes: frame number, capture time, CRC.
    static let payloadBytes = 14
    /// The two trailing cells that fill the last row: a fixed 1, 0.
    static let trailer: [Bool] = [true, false]

    /// Height of the stamp band in a picture `width` pixels wide.
    public static func bandHeight(forWidth width: Int) -> Int { edge(rows, width: width) }

    /// Whether a picture is large enough to hold a stamp: cells at least 2 px, the band fits.
    public static func fits(width: Int, height: Int) -> Bool {
        width >= 2 * columns && bandHeight(forWidth: width) <= height
    }

    /// Paints the stamp over the top band of `frame` (luma cells, neutral chroma).
    ///
    /// - Returns: `false`, leaving the frame untouched, when it is too small (see ``fits(width:height:)``).
    @discardableResult
    public static func write(into frame: inout VideoFrame, frameNumber: UInt32, captureTimeMicros: UInt64) -> Bool {
        guard fits(width: frame.width, height: frame.height) else { return false }
        let width = frame.width
        let bits = payloadBits(frameNumber: frameNumber, captureTimeMicros: captureTimeMicros)
        let dataColumns = columns - referenceColumns
        for row in 0..<rows {
            for column in 0..<columns {
                let isWhite = switch column {
                case 0: true
                case 1: false
                default: bits[row * dataColumns + column - referenceColumns]
                }
                let value = isWhite ? white : black
                for y in edge(row, width: width)..<edge(row + 1, width: width) {
                    let start = y * width
                    for x in edge(column, width: width)..<edge(column + 1, width: width) {
                        frame.y[start + x] = value
                    }
                }
            }
        }
        let chromaRows = min(frame.chromaHeight, (bandHeight(forWidth: width) + 1) / 2)
        for index in 0..<(chromaRows * frame.chromaWidth) {
            frame.u[index] = 128
            frame.v[index] = 128
        }
        return true
    }

    /// Reads the stamp of `frame`, at any scale of the picture it was written into.
    ///
    /// - Returns: `nil` when there is no readable stamp: too small a picture, too little contrast
    ///   in a reference cell, a wrong trailer or a CRC mismatch.
    public static func read(from frame: VideoFrame) -> (frameNumber: UInt32, captureTimeMicros: UInt64)? {
        guard fits(width: frame.width, height: frame.height) else { return nil }
        var bits: [Bool] = []
        bits.reserveCapacity(rows * (columns - referenceColumns))
        for row in 0..<rows {
            let whiteLevel = meanLuma(frame, row: row, column: 0)
            let blackLevel = meanLuma(frame, row: row, column: 1)
            guard whiteLevel - blackLevel >= minimumContrast else { return nil }
            let threshold = (whiteLevel + blackLevel) / 2
            for column in referenceColumns..<columns {
                bits.append(meanLuma(frame, row: row, column: column) > threshold)
            }
        }
        guard Array(bits.suffix(trailer.count)) == trailer else { return nil }
        var bytes = [UInt8](repeating: 0, count: payloadBytes)
        for (index, bit) in bits.prefix(payloadBytes * 8).enumerated() where bit {
            bytes[index / 8] |= 0x80 >> UInt8(index % 8)
        }
        let crc = UInt16(bytes[12]) << 8 | UInt16(bytes[13])
        guard crc == crc16(bytes[0..<12]) else { return nil }
        let frameNumber = bytes[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let captureTime = bytes[4..<12].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return (frameNumber, captureTime)
    }

    /// The 114 cell values: payload bits, most significant first, then the trailer.
    static func payloadBits(frameNumber: UInt32, captureTimeMicros: UInt64) -> [Bool] {
        var bytes: [UInt8] = []
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: frameNumber >> UInt32(shift))) }
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: captureTimeMicros >> UInt64(shift))) }
        let crc = crc16(bytes[...])
        bytes += [UInt8(crc >> 8), UInt8(crc & 0xFF)]
        var bits: [Bool] = []
        for byte in bytes {
            for bit in 0..<8 { bits.append(byte & (0x80 >> UInt8(bit)) != 0) }
        }
        return bits + trailer
    }

    /// CRC-16/CCITT-FALSE: polynomial 0x1021, initial 0xFFFF, not reflected, no final XOR.
    /// Check value of "123456789": 0x29B1.
    static func crc16(_ bytes: ArraySlice<UInt8>) -> UInt16 {
        var crc: UInt16 = 0xFFFF
        for byte in bytes {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 {
                crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1
            }
        }
        return crc
    }

    /// Pixel edge of cell boundary `index` (rows and columns share the cell size: width / 40).
    static func edge(_ index: Int, width: Int) -> Int { index * width / columns }

    /// Mean luma of the inner half of a cell.
    static func meanLuma(_ frame: VideoFrame, row: Int, column: Int) -> Int {
        let width = frame.width
        let (x0, x1) = (edge(column, width: width), edge(column + 1, width: width))
        let (y0, y1) = (edge(row, width: width), edge(row + 1, width: width))
        let insetX = (x1 - x0) / 4
        let insetY = (y1 - y0) / 4
        var sum = 0
        var count = 0
        for y in (y0 + insetY)..<(y1 - insetY) {
            let start = y * width
            for x in (x0 + insetX)..<(x1 - insetX) {
                sum += Int(frame.y[start + x])
                count += 1
            }
        }
        return count > 0 ? sum / count : 0
    }
}
