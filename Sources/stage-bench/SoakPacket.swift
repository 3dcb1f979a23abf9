import Foundation
import Synchronization

/// The soak's synthetic simulcast packet: an RTP header with the rid header extension
/// (RFC 8852, one-byte form, RFC 8285), a VP8 descriptor and frame tag (so the SFU sees real
/// keyframes to switch layers on), then publisher, layer and a per-layer counter that the
/// subscribers use to count loss exactly.
enum SoakPacket {
    static let size = 600
    /// Simulcast rids, lowest first, as `a=rid` names them.
    static let rids = ["q", "h", "f"]
    /// RTP header 12 + extension header 4 + one element padded to 4.
    static let headerSize = 20
    /// Descriptor (1) + frame tag (3).
    static let dataOffset = headerSize + 4

    /// Writes one packet of `layer`; `keyframe` sets P = 0 in the VP8 frame tag.
    static func make(ssrc: UInt32, sequence: UInt16, publisher: UInt16, layer: Int, counter: UInt32, keyframe: Bool,
                     into buffer: inout [UInt8]) {
        let timestamp = UInt32(truncatingIfNeeded: DispatchTime.now().uptimeNanoseconds / 11_111)   // 90 kHz
        buffer.withUnsafeMutableBytes { p in
            p[0] = 0x90; p[1] = 0x80 | 96                // V=2, X=1; marker: every packet is a frame
            p.storeBytes(of: sequence.bigEndian, toByteOffset: 2, as: UInt16.self)
            p.storeBytes(of: timestamp.bigEndian, toByteOffset: 4, as: UInt32.self)
            p.storeBytes(of: ssrc.bigEndian, toByteOffset: 8, as: UInt32.self)
            p[12] = 0xBE; p[13] = 0xDE; p[14] = 0; p[15] = 1                   // one-byte extensions, 1 word
            p[16] = 0x20; p[17] = UInt8(ascii: rids[layer].unicodeScalars.first ?? "f"); p[18] = 0; p[19] = 0   // id 2, length 1
            p[20] = 0x10                                                       // VP8 descriptor: S = 1, PID = 0
            p[21] = keyframe ? 0x10 : 0x11; p[22] = 0; p[23] = 0               // frame tag: show_frame, P
            p.storeBytes(of: publisher, toByteOffset: dataOffset, as: UInt16.self)
            p[dataOffset + 2] = UInt8(layer)
            p.storeBytes(of: counter, toByteOffset: dataOffset + 3, as: UInt32.self)
        }
    }

    /// (publisher, layer, counter) of a received packet, wherever its (rewritten) header ends.
    static func read(_ packet: UnsafeMutableRawBufferPointer) -> (publisher: Int, layer: Int, counter: UInt32)? {
        guard packet.count >= 12 else { return nil }
        var offset = 12 + Int(packet[0] & 0x0F) * 4
        if packet[0] & 0x10 != 0 {
            guard packet.count >= offset + 4 else { return nil }
            offset += 4 + Int(UInt16(packet[offset + 2]) << 8 | UInt16(packet[offset + 3])) * 4
        }
        offset += 4
        guard packet.count >= offset + 7 else { return nil }
        return (Int(packet.loadUnaligned(fromByteOffset: offset, as: UInt16.self)), Int(packet[offset + 2]),
                packet.loadUnaligned(fromByteOffset: offset + 3, as: UInt32.self))
    }
}

/// One subscription's view of the stream it receives (touched only on the clients' event
/// loop): a gap in a layer's counter while the subscription stays on that layer is loss; a
/// layer switch (the SFU moves it at a keyframe, e.g. when a publisher mutes and unmutes) or
/// the first packet after joining is a transition, not loss.
final class SoakSubscription: @unchecked Sendable {
    private var layer = -1
    private var last: UInt32 = 0
    private let counters: SoakCounters

    init(counters: SoakCounters) { self.counters = counters }

    func receive(_ packet: UnsafeMutableRawBufferPointer) {
        guard let (_, layer, counter) = SoakPacket.read(packet) else { return counters.add(malformed: 1) }
        var lost = 0, switched = false, first = false
        if layer != self.layer {
            first = self.layer < 0
            switched = !first
            self.layer = layer
        } else if counter > last {
            lost = Int(counter - last - 1)
        } else {
            return counters.add(late: 1)
        }
        last = counter
        counters.add(received: 1, lost: lost, switched: switched, first: first)
    }
}

/// What every subscription received, summed; read once a second by the soak.
final class SoakCounters: Sendable {
    struct Totals: Sendable {
        var received = 0, lost = 0, switches = 0, late = 0, malformed = 0
        /// Subscriptions that have received their first packet.
        var flowing = 0
    }

    private let totals = Mutex(Totals())

    func add(received: Int = 0, lost: Int = 0, switched: Bool = false, first: Bool = false, late: Int = 0, malformed: Int = 0) {
        totals.withLock {
            $0.received += received
            $0.lost += lost
            $0.late += late
            $0.malformed += malformed
            if switched { $0.switches += 1 }
            if first { $0.flowing += 1 }
        }
    }

    func snapshot() -> Totals { totals.withLock { $0 } }
}
