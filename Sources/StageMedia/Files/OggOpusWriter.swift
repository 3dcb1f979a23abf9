/// Writes Opus packets as an Ogg Opus file (`.opus`/`.ogg`), following RFC 7845 on top of the
/// Ogg pages of RFC 3533:
///
/// - page 0 (BOS) holds only the `OpusHead` packet (§5.1), page 1 only `OpusTags` (§5.2), both
///   with granule position 0;
/// - audio pages hold whole packets; each page's granule position is the number of 48 kHz
///   samples of every packet completed on it and before it, pre-skip included (§4);
/// - the last page carries EOS. Pages are flushed once they hold ``maximumPageSamples`` or
///   their 255 lacing values are used up, so a crash loses at most that much audio.
///
/// Packet durations come from the TOC byte (RFC 6716 §3.1), so 10, 20, 40 and 60 ms packets mix
/// freely. ``close()`` (or `deinit`) writes the last page. One task or actor uses a writer at a time.
public final class OggOpusWriter {
    /// libopus's encoder delay at 48 kHz (OPUS_GET_LOOKAHEAD): the usual pre-skip.
    public static let defaultPreSkip: UInt16 = 312
    /// A packet must fit one page: 255 lacing values describe at most 65,024 bytes. Opus packets
    /// never exceed 61,298 bytes (RFC 6716 §3.2.5: 48 frames of at most 1,275 bytes plus headers).
    public static let maximumPacketBytes = 254 * 255 + 254
    /// Audio held before a page is written: one second, as libopusenc does by default.
    public static let maximumPageSamples = 48_000

    public let channels: Int
    public let preSkip: UInt16
    public let serialNumber: UInt32
    /// 48 kHz samples of all packets written so far, pre-skip included.
    public private(set) var granulePosition: UInt64 = 0
    public private(set) var packetCount = 0

    private let file: MediaFileOutput
    private var sequenceNumber: UInt32 = 0
    private var pending: [[UInt8]] = []
    private var pendingSegments = 0
    private var pendingSamples = 0

    /// Creates (or truncates) the file at `path` and writes the two header pages.
    ///
    /// - Parameters:
    ///   - channels: 1 or 2 (channel mapping family 0, RFC 7845 §5.1.1.1).
    ///   - preSkip: samples the player drops at the start: the encoder's lookahead.
    ///   - inputSampleRate: the original rate, informational (§5.1).
    ///   - serialNumber: the Ogg logical stream serial; random by default.
    ///   - vendor, comments: the `OpusTags` vendor string and `NAME=value` comments (§5.2).
    public init(
        path: String, channels: Int = 1, preSkip: UInt16 = OggOpusWriter.defaultPreSkip,
        inputSampleRate: UInt32 = 48_000, serialNumber: UInt32 = .random(in: 0...UInt32.max),
        vendor: String = "Proscenium", comments: [String] = []
    ) throws(MediaWriterError) {
        guard channels == 1 || channels == 2 else {
            throw .invalidArgument(name: "channels", value: "\(channels)", rule: "mapping family 0 is mono or stereo (RFC 7845 §5.1.1.1)")
        }
        self.channels = channels
        self.preSkip = preSkip
        self.serialNumber = serialNumber
        do { file = try MediaFileOutput(path: path) } catch { throw .io(error) }

        var head: [UInt8] = Array("OpusHead".utf8)
        head.append(1)  // version
        head.append(UInt8(channels))
        MediaFileLE.append(preSkip, to: &head)
        MediaFileLE.append(inputSampleRate, to: &head)
        MediaFileLE.append(Int16(0), to: &head)  // output gain, Q7.8 dB
        head.append(0)  // channel mapping family

        var tags: [UInt8] = Array("OpusTags".utf8)
        let vendorBytes = Array(vendor.utf8)
        MediaFileLE.append(UInt32(vendorBytes.count), to: &tags)
        tags += vendorBytes
        MediaFileLE.append(UInt32(comments.count), to: &tags)
        for comment in comments {
            let bytes = Array(comment.utf8)
            MediaFileLE.append(UInt32(bytes.count), to: &tags)
            tags += bytes
        }
        guard OggPage.segmentCount(forPacketOf: tags.count) <= OggPage.maximumSegments else {
            throw .invalidArgument(name: "OpusTags", value: "\(tags.count) bytes", rule: "at most \(Self.maximumPacketBytes) bytes (one page)")
        }
        try writePage(headerType: OggPage.beginningOfStream, packets: [head])
        try writePage(headerType: 0, packets: [tags])
    }

    deinit { try? close() }

    /// Appends one Opus packet (RFC 6716 §3); its duration is read from its TOC byte.
    public func write(packet: [UInt8]) throws(MediaWriterError) {
        guard file.isOpen else { throw .closed(path: file.path) }
        let samples = try Self.sampleCount(ofPacket: packet)
        guard packet.count <= Self.maximumPacketBytes else {
            throw .invalidArgument(name: "packet size", value: "\(packet.count)", rule: "at most \(Self.maximumPacketBytes) bytes")
        }
        let segments = OggPage.segmentCount(forPacketOf: packet.count)
        if !pending.isEmpty, pendingSegments + segments > OggPage.maximumSegments || pendingSamples >= Self.maximumPageSamples {
            try flush(headerType: 0)
        }
        pending.append(packet)
        pendingSegments += segments
        pendingSamples += samples
        granulePosition += UInt64(samples)
        packetCount += 1
    }

    /// Writes the last page, marked EOS, and closes the file. Calling it again does nothing.
    public func close() throws(MediaWriterError) {
        guard file.isOpen else { return }
        do {
            try flush(headerType: OggPage.endOfStream)
        } catch {
            try? file.close()
            throw error
        }
        do { try file.close() } catch { throw .io(error) }
    }

    /// Samples at 48 kHz in an Opus packet, from its TOC byte and, for code 3, its frame count
    /// byte (RFC 6716 §3.1, §3.2.5). At most 120 ms.
    public static func sampleCount(ofPacket packet: [UInt8]) throws(MediaWriterError) -> Int {
        guard let toc = packet.first else { throw .invalidOpusPacket(reason: "empty packet (a packet has at least a TOC byte)") }
        let config = Int(toc >> 3)
        // Frame sizes per configuration, in 48 kHz samples: SILK 10/20/40/60 ms, Hybrid 10/20,
        // CELT 2.5/5/10/20.
        let frameSamples: Int
        switch config {
        case 0..<12: frameSamples = [480, 960, 1920, 2880][config % 4]
        case 12..<16: frameSamples = [480, 960][config % 2]
        default: frameSamples = [120, 240, 480, 960][config % 4]
        }
        let frames: Int
        switch toc & 0x03 {
        case 0: frames = 1
        case 1, 2: frames = 2
        default:
            guard packet.count >= 2 else { throw .invalidOpusPacket(reason: "code 3 packet without its frame count byte") }
            frames = Int(packet[1] & 0x3F)
            guard frames > 0 else { throw .invalidOpusPacket(reason: "code 3 packet with zero frames") }
        }
        guard frames * frameSamples <= 5760 else {
            throw .invalidOpusPacket(reason: "\(frames) frames of \(frameSamples) samples exceed 120 ms")
        }
        return frames * frameSamples
    }

    private func flush(headerType: UInt8) throws(MediaWriterError) {
        try writePage(headerType: headerType, packets: pending)
        pending.removeAll(keepingCapacity: true)
        pendingSegments = 0
        pendingSamples = 0
    }

    private func writePage(headerType: UInt8, packets: [[UInt8]]) throws(MediaWriterError) {
        let page = OggPage(
            headerType: headerType, granulePosition: granulePosition, serialNumber: serialNumber,
            sequenceNumber: sequenceNumber, packets: packets)
        do { try file.append(page.serialized()) } catch { throw .io(error) }
        sequenceNumber += 1
    }
}
