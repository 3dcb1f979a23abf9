/// An SDES item type (RFC 3550 §6.5). Types StageWire does not interpret are kept raw.
public struct RTCPSDESItemType: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Terminates a chunk's item list; never stored as an item.
    public static let end = Self(rawValue: 0)
    public static let cname = Self(rawValue: 1)
    public static let name = Self(rawValue: 2)
    public static let email = Self(rawValue: 3)
    public static let phone = Self(rawValue: 4)
    public static let location = Self(rawValue: 5)
    public static let tool = Self(rawValue: 6)
    public static let note = Self(rawValue: 7)
    public static let privateExtension = Self(rawValue: 8)
}

/// A Source Description packet (RFC 3550 §6.5): chunks of an SSRC and its items, each chunk's
/// item list ended by a null octet and padded to 32 bits.
///
/// ```
/// |V=2|P|    SC   |  PT=SDES=202  |             length            |
/// |                          SSRC/CSRC_1                          |
/// |    CNAME=1    |     length    | user and domain name        …
/// |     END=0     |  (null padding to the next 32-bit boundary)   |
/// ```
public struct RTCPSourceDescription: RTCPPacketBody {
    public static let packetType = RTCPPacketType.sourceDescription

    /// One item: its type and raw value bytes (UTF-8 text for the RFC 3550 types).
    public struct Item: Hashable, Sendable {
        public var type: RTCPSDESItemType
        public var value: [UInt8]

        public init(type: RTCPSDESItemType, value: [UInt8]) {
            self.type = type
            self.value = value
        }

        public init(type: RTCPSDESItemType, text: String) {
            self.init(type: type, value: Array(text.utf8))
        }

        /// The value decoded as UTF-8 (invalid sequences replaced).
        public var text: String { String(decoding: value, as: UTF8.self) }
    }

    /// One chunk: a source and its items.
    public struct Chunk: Hashable, Sendable {
        public var source: UInt32
        public var items: [Item]

        public init(source: UInt32, items: [Item]) {
            self.source = source
            self.items = items
        }

        /// SSRC, items, the END octet, then nulls to 32 bits.
        var size: Int { RTPHeader.roundedToWords(4 + items.reduce(0) { $0 + 2 + $1.value.count } + 1) }
    }

    public var chunks: [Chunk]

    public init(chunks: [Chunk]) {
        self.chunks = chunks
    }

    /// One chunk carrying only a CNAME, what WebRTC endpoints send in every compound packet.
    public init(source: UInt32, cname: String) {
        self.init(chunks: [Chunk(source: source, items: [Item(type: .cname, text: cname)])])
    }

    /// The CNAME of `source`, if its chunk has one.
    public func cname(of source: UInt32) -> String? {
        chunks.first { $0.source == source }?.items.first { $0.type == .cname }?.text
    }

    public var countField: Int { chunks.count }
    public var bodySize: Int { chunks.reduce(0) { $0 + $1.size } }

    public init(header: RTCPHeader, body: UnsafeRawBufferPointer) throws(RTCPError) {
        var reader = RTPByteReader(body)
        var chunks: [Chunk] = []
        for _ in 0..<header.count {
            guard let source = reader.readUInt32() else { throw .sdesChunkTruncated }
            var items: [Item] = []
            while true {
                guard let type = reader.readUInt8() else { throw .sdesChunkTruncated }
                if type == RTCPSDESItemType.end.rawValue { break }
                guard let length = reader.readUInt8(), let value = reader.readBytes(Int(length)) else {
                    throw .sdesChunkTruncated
                }
                items.append(Item(type: RTCPSDESItemType(rawValue: type), value: value))
            }
            // Null octets up to the next 32-bit boundary; tolerate a body cut there by padding removal.
            _ = reader.skip(min(RTPHeader.roundedToWords(reader.offset) - reader.offset, reader.remaining))
            chunks.append(Chunk(source: source, items: items))
        }
        self.init(chunks: chunks)
    }

    public func serializeBody(into out: inout [UInt8]) throws(RTCPError) {
        for chunk in chunks {
            let start = out.count
            out.appendBigEndian(chunk.source)
            for item in chunk.items {
                guard item.type != .end else { throw .sdesEndItem }
                guard item.value.count <= 255 else { throw .valueTooLong(item.value.count) }
                out.appendBigEndian(item.type.rawValue)
                out.appendBigEndian(UInt8(item.value.count))
                out.append(contentsOf: item.value)
            }
            out.appendWireZeros(chunk.size - (out.count - start))
        }
    }
}
