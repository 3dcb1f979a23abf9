/// The `fmt ` chunk of a RIFF WAVE file that this package reads and writes: 16-bit PCM,
/// 48 000 Hz, mono or stereo. Layout (Microsoft/IBM "Multimedia Programming Interface and Data
/// Specifications 1.0", 1991, and WAVEFORMATEXTENSIBLE in Microsoft's mmreg.h), little-endian:
///
/// ```
/// 0 wFormatTag  2 nChannels  4 nSamplesPerSec  8 nAvgBytesPerSec  12 nBlockAlign  14 wBitsPerSample
/// 16 cbSize  18 wValidBitsPerSample  20 dwChannelMask  24 SubFormat (GUID)   ← extensible only
/// ```
public struct WAVFormat: Sendable, Hashable {
    public static let formatPCM: UInt16 = 0x0001
    public static let formatExtensible: UInt16 = 0xFFFE
    /// KSDATAFORMAT_SUBTYPE_PCM, 00000001-0000-0010-8000-00AA00389B71, in its on-disk byte order.
    static let pcmSubFormat: [UInt8] = [0x01, 0, 0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71]

    public var channels: Int
    public var sampleRate: Int { AudioFrame.sampleRate }
    public var bitsPerSample: Int { 16 }
    /// Bytes per sample frame (all channels).
    public var blockAlign: Int { channels * 2 }

    public init(channels: Int) {
        self.channels = channels
    }

    /// Validates a `fmt ` chunk body.
    init(parsing body: [UInt8]) throws(WAVError) {
        guard body.count >= 16 else { throw .formatChunkTooShort(size: body.count, minimum: 16) }
        let tag = MediaFileLE.uint16(body, 0)
        let channels = Int(MediaFileLE.uint16(body, 2))
        let sampleRate = Int(MediaFileLE.uint32(body, 4))
        let blockAlign = Int(MediaFileLE.uint16(body, 12))
        let bits = Int(MediaFileLE.uint16(body, 14))
        switch tag {
        case Self.formatPCM:
            break
        case Self.formatExtensible:
            guard body.count >= 40 else { throw .formatChunkTooShort(size: body.count, minimum: 40) }
            let subFormat = Array(body[24..<40])
            guard subFormat == Self.pcmSubFormat else { throw .unsupportedSubFormat(Self.guidText(subFormat)) }
        default:
            throw .unsupportedFormatTag(tag)
        }
        guard bits == 16 else { throw .unsupportedBitsPerSample(bits) }
        guard sampleRate == AudioFrame.sampleRate else { throw .unsupportedSampleRate(sampleRate) }
        guard channels == 1 || channels == 2 else { throw .unsupportedChannelCount(channels) }
        guard blockAlign == channels * 2 else { throw .inconsistentBlockAlign(blockAlign: blockAlign, expected: channels * 2) }
        self.channels = channels
    }

    /// The 16-byte PCM `fmt ` body.
    func serialized() -> [UInt8] {
        var body: [UInt8] = []
        MediaFileLE.append(Self.formatPCM, to: &body)
        MediaFileLE.append(UInt16(channels), to: &body)
        MediaFileLE.append(UInt32(sampleRate), to: &body)
        MediaFileLE.append(UInt32(sampleRate * blockAlign), to: &body)
        MediaFileLE.append(UInt16(blockAlign), to: &body)
        MediaFileLE.append(UInt16(bitsPerSample), to: &body)
        return body
    }

    /// "0x0003 (IEEE float)" for the tags people meet; the number alone otherwise.
    static func formatTagName(_ tag: UInt16) -> String {
        let digits = String(tag, radix: 16, uppercase: true)
        let number = "0x" + String(repeating: "0", count: 4 - digits.count) + digits
        let names: [UInt16: String] = [0x0001: "PCM", 0x0002: "ADPCM", 0x0003: "IEEE float", 0x0006: "A-law", 0x0007: "µ-law", 0x0055: "MP3", 0xFFFE: "extensible"]
        return names[tag].map { "\(number) (\($0))" } ?? number
    }

    /// A GUID in its usual text form, from its on-disk (mixed-endian) bytes.
    static func guidText(_ bytes: [UInt8]) -> String {
        func hex(_ slice: [UInt8]) -> String {
            slice.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined()
        }
        return [hex(bytes[0..<4].reversed()), hex(bytes[4..<6].reversed()), hex(bytes[6..<8].reversed()), hex(Array(bytes[8..<10])), hex(Array(bytes[10..<16]))]
            .joined(separator: "-")
    }
}
