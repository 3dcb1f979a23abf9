/// Writes compressed video frames in IVF, the container of libvpx's tools (`ivfenc.c`/`ivfdec.c`
/// in libvpx; also read by FFmpeg). All fields little-endian:
///
/// ```
/// file header, 32 bytes:  0 "DKIF"  4 version (0)  6 header size (32)  8 fourcc ("VP80")
///                         12 width  14 height  16 timebase denominator  20 timebase numerator
///                         24 length  28 unused
/// each frame:             0 frame size (4 bytes)  4 presentation timestamp (8 bytes)  12 frame
/// ```
///
/// Timestamps count timebase units (the default, 1/90000, is the VP8 RTP clock). Bytes 24–27:
/// libvpx writes the frame count there, FFmpeg (`ivfenc.c`, `ivfdec.c`) the stream length in
/// timebase units, frames × mean frame interval, and takes it as the duration. The two agree when
/// the timebase is the frame period; for any other timebase only the length gives players the
/// right duration, so ``close()`` patches in the length (libvpx's reader ignores the field;
/// WebRTC's test `IvfFileReader` would take it as a frame count).
/// `deinit` calls ``close()`` if it was not called. One task or actor uses a writer at a time.
public final class IVFWriter {
    public static let headerSize = 32
    public static let frameHeaderSize = 12

    public let width: Int
    public let height: Int
    public let timebaseNumerator: UInt32
    public let timebaseDenominator: UInt32
    /// Frames written so far.
    public private(set) var frameCount: UInt32 = 0
    private var firstTimestamp: UInt64 = 0
    private var lastTimestamp: UInt64 = 0

    private let file: MediaFileOutput

    /// Creates (or truncates) the file at `path` and writes the header.
    ///
    /// - Parameters:
    ///   - fourCC: four ASCII characters naming the codec: "VP80" (default), "VP90", "AV01".
    ///   - width, height: the picture size, 1…65535.
    ///   - timebaseNumerator, timebaseDenominator: seconds per timestamp unit, default 1/90000.
    public init(
        path: String, fourCC: String = "VP80", width: Int, height: Int,
        timebaseNumerator: UInt32 = 1, timebaseDenominator: UInt32 = 90_000
    ) throws(MediaWriterError) {
        let code = Array(fourCC.utf8)
        guard code.count == 4 else { throw .invalidArgument(name: "fourCC", value: fourCC, rule: "four ASCII characters") }
        guard (1...65535).contains(width), (1...65535).contains(height) else {
            throw .invalidArgument(name: "size", value: "\(width)×\(height)", rule: "each side 1…65535 (16-bit fields)")
        }
        guard timebaseNumerator > 0, timebaseDenominator > 0 else {
            throw .invalidArgument(name: "timebase", value: "\(timebaseNumerator)/\(timebaseDenominator)", rule: "both terms positive")
        }
        self.width = width
        self.height = height
        self.timebaseNumerator = timebaseNumerator
        self.timebaseDenominator = timebaseDenominator
        do { file = try MediaFileOutput(path: path) } catch { throw .io(error) }

        var header: [UInt8] = Array("DKIF".utf8)
        MediaFileLE.append(UInt16(0), to: &header)
        MediaFileLE.append(UInt16(Self.headerSize), to: &header)
        header += code
        MediaFileLE.append(UInt16(width), to: &header)
        MediaFileLE.append(UInt16(height), to: &header)
        MediaFileLE.append(timebaseDenominator, to: &header)
        MediaFileLE.append(timebaseNumerator, to: &header)
        MediaFileLE.append(UInt32(0), to: &header)
        MediaFileLE.append(UInt32(0), to: &header)
        do { try file.append(header) } catch { throw .io(error) }
    }

    deinit { try? close() }

    /// Appends one compressed frame.
    ///
    /// - Parameters:
    ///   - frame: the codec bitstream of one frame (for VP8, RFC 6386 §9 frame, keyframe first).
    ///   - timestamp: presentation time in timebase units.
    public func write(frame: [UInt8], timestamp: UInt64) throws(MediaWriterError) {
        guard file.isOpen else { throw .closed(path: file.path) }
        guard frame.count <= Int(UInt32.max) else {
            throw .invalidArgument(name: "frame size", value: "\(frame.count)", rule: "at most 4 GiB (32-bit field)")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.frameHeaderSize + frame.count)
        MediaFileLE.append(UInt32(frame.count), to: &bytes)
        MediaFileLE.append(timestamp, to: &bytes)
        bytes += frame
        do { try file.append(bytes) } catch { throw .io(error) }
        if frameCount == 0 { firstTimestamp = timestamp }
        lastTimestamp = timestamp
        frameCount &+= 1
    }

    /// The length field: frames × mean interval in timebase units (FFmpeg's reading), the frame
    /// count when there are fewer than two frames or the timestamps do not increase.
    public var length: UInt32 {
        guard frameCount > 1, lastTimestamp > firstTimestamp else { return frameCount }
        let span = lastTimestamp - firstTimestamp
        let (product, overflow) = span.multipliedReportingOverflow(by: UInt64(frameCount))
        guard !overflow else { return .max }
        return UInt32(clamping: product / UInt64(frameCount - 1))
    }

    /// Patches the length and closes the file. Calling it again does nothing.
    public func close() throws(MediaWriterError) {
        guard file.isOpen else { return }
        do {
            try file.overwrite(MediaFileLE.bytes(length), at: 24)
            try file.close()
        } catch {
            try? file.close()
            throw .io(error)
        }
    }
}
