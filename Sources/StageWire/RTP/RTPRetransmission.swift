/// RTP retransmission payload format (RFC 4588 §4): a resent packet travels on its own SSRC
/// and payload type, with its own sequence numbers, and its payload starts with the original
/// sequence number (OSN) followed by the original payload.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                         RTP Header                            |
/// |            OSN                |                               |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               |
/// |                  Original RTP Packet Payload                  |
/// ```
///
/// Both directions work on caller-owned buffers and allocate nothing.
public enum RTPRetransmission {
    /// Bytes the OSN adds to a packet.
    public static let originalSequenceSize = 2

    /// Writes the RTX form of `original` into `output` (RFC 4588 §4): the original header
    /// (CSRCs and extensions kept, padding dropped) with the RTX stream's SSRC, payload type and
    /// sequence number, then the OSN, then the original payload.
    /// - Parameters:
    ///   - original: a whole RTP packet, its header already checked.
    ///   - payload: where its payload is (as `RTPHeader.parse` gives it: without padding).
    ///   - originalSequence: the OSN, the sequence number the receiver knows the packet by.
    ///   - timestamp: the timestamp to write (the original one, on the receiver's timeline).
    /// - Returns: the RTX packet's length, or nil when `output` is too small.
    public static func wrap(_ original: UnsafeRawBufferPointer, payload: Range<Int>, into output: UnsafeMutableRawBufferPointer,
                            ssrc: UInt32, payloadType: UInt8, sequenceNumber: UInt16, originalSequence: UInt16,
                            timestamp: UInt32) -> Int? {
        let headerSize = payload.lowerBound
        let length = headerSize + originalSequenceSize + payload.count
        guard headerSize >= RTPHeader.fixedSize, payload.upperBound <= original.count, length <= output.count else { return nil }
        UnsafeMutableRawBufferPointer(rebasing: output[..<headerSize]).copyMemory(from: UnsafeRawBufferPointer(rebasing: original[..<headerSize]))
        output[0] &= ~RTPHeaderBits.paddingMask
        output[headerSize] = UInt8(originalSequence >> 8)
        output[headerSize + 1] = UInt8(truncatingIfNeeded: originalSequence)
        UnsafeMutableRawBufferPointer(rebasing: output[(headerSize + originalSequenceSize)..<length])
            .copyMemory(from: UnsafeRawBufferPointer(rebasing: original[payload]))
        let packet = UnsafeMutableRawBufferPointer(rebasing: output[..<length])
        try? RTPHeader.rewrite(sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: ssrc, in: packet)
        try? RTPHeader.setPayloadType(payloadType, in: packet)
        return length
    }

    /// Turns an RTX packet back into the original in place (RFC 4588 §4): the header moves up
    /// over the OSN, and takes the OSN as its sequence number and the original stream's SSRC
    /// and payload type.
    /// - Parameters:
    ///   - packet: the RTX packet; its first `originalSequenceSize` bytes become unused.
    ///   - payload: its payload range (from `RTPHeader.parse`).
    /// - Returns: the original packet's range within `packet`, or nil for an RTX packet with
    ///   no OSN (padding only: a bandwidth probe), which has nothing to restore.
    public static func unwrap(_ packet: UnsafeMutableRawBufferPointer, payload: Range<Int>,
                              originalSSRC: UInt32, originalPayloadType: UInt8) -> Range<Int>? {
        let headerSize = payload.lowerBound
        guard headerSize >= RTPHeader.fixedSize, payload.count >= originalSequenceSize, payload.upperBound <= packet.count else { return nil }
        let sequence = UInt16(packet[headerSize]) << 8 | UInt16(packet[headerSize + 1])
        guard let base = packet.baseAddress else { return nil }
        (base + originalSequenceSize).copyMemory(from: base, byteCount: headerSize)
        let range = originalSequenceSize..<packet.count
        let original = UnsafeMutableRawBufferPointer(rebasing: packet[range])
        try? RTPHeader.setSequenceNumber(sequence, in: original)
        try? RTPHeader.setSSRC(originalSSRC, in: original)
        try? RTPHeader.setPayloadType(originalPayloadType, in: original)
        return range
    }
}
