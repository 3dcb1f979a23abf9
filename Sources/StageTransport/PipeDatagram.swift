import StageWire

/// What a pipe does with one datagram from its connected remote, sans-IO (no socket, no
/// address): tell RTP from RTCP, unprotect in place, check the header. `PipeTransport` runs it
/// after the source check; scripts/fuzz.sh's `pipe` target feeds it arbitrary bytes.
enum PipeDatagram {
    enum Opened: Equatable {
        /// Authenticated, decrypted RTP whose header parses: the first `length` bytes.
        case rtp(length: Int)
        /// Authenticated, decrypted RTCP: the first `length` bytes.
        case rtcp(length: Int)
        case refused(MediaDropReason)
    }

    /// An RTCP packet's header and sender SSRC (RFC 3550 §6.4.1), which SRTCP leaves in clear.
    static let rtcpHeaderLength = 8
    /// SRTCP's E flag and index after the packet (RFC 3711 §3.4).
    static let srtcpIndexLength = 4

    /// Opens `datagram` in place with `srtp`'s receive key.
    ///
    /// - RTP or RTCP by the first two bytes (RFC 7983 §7: 128–191 is RTP or RTCP, version 2;
    ///   RFC 5761 §4: a second byte of 192–223 is RTCP); anything else is `pipe_malformed`.
    /// - Shorter than the header SRTP or SRTCP authenticates, or what libsrtp cannot read: `pipe_malformed`.
    /// - The authentication tag (RFC 3711 §3.3, §3.4; RFC 7714) does not verify: `pipe_srtp_auth_failed`;
    ///   already received or older than the replay window (RFC 3711 §3.3.2): `pipe_srtp_replay`.
    /// - Decrypted RTP whose header does not parse (RFC 3550 §5.1: CSRCs, extension or padding
    ///   past its end): `pipe_malformed`.
    static func open(_ datagram: UnsafeMutableRawBufferPointer, with srtp: SRTPSession) -> Opened {
        guard datagram.count >= 2 else { return .refused(.pipeMalformed) }
        switch Demux.classify(first: datagram[0], second: datagram[1]) {
        case .rtp:
            guard datagram.count >= RTPHeader.fixedSize else { return .refused(.pipeMalformed) }
            let length: Int
            do { length = try srtp.unprotectRTP(datagram, length: datagram.count) } catch { return .refused(reason(error)) }
            guard (try? RTPHeader.parse(UnsafeRawBufferPointer(rebasing: datagram[..<length]))) != nil else {
                return .refused(.pipeMalformed)
            }
            return .rtp(length: length)
        case .rtcp:
            guard datagram.count >= rtcpHeaderLength + srtcpIndexLength else { return .refused(.pipeMalformed) }
            let length: Int
            do { length = try srtp.unprotectRTCP(datagram, length: datagram.count) } catch { return .refused(reason(error)) }
            guard length >= rtcpHeaderLength else { return .refused(.pipeMalformed) }
            return .rtcp(length: length)
        default:
            return .refused(.pipeMalformed)
        }
    }

    static func reason(_ failure: SRTPSession.Failure) -> MediaDropReason {
        switch failure {
        case .authentication: .pipeAuthentication
        case .replay: .pipeReplay
        case .other: .pipeMalformed
        }
    }
}
