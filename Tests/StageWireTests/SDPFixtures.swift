/// Offers as real peers write them, for the SDP tests (LF line endings here; the tests also feed
/// them with CRLF).
enum SDPFixtures {
    /// A Chrome (M120-era, unified plan) publish offer: Opus audio, VP8 video with RTX,
    /// three simulcast layers by rid, trickle ICE with host, srflx and TCP candidates.
    static let chromeOffer = """
        v=0
        o=- 4611731400430051336 2 IN IP4 127.0.0.1
        s=-
        t=0 0
        a=group:BUNDLE 0 1
        a=extmap-allow-mixed
        a=msid-semantic: WMS 6f3c1c5e-0b8f-4a44-9d0a-3d6d5e0c4b4e
        m=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126
        c=IN IP4 0.0.0.0
        a=rtcp:9 IN IP4 0.0.0.0
        a=candidate:1467250027 1 udp 2122260223 192.168.1.10 54321 typ host generation 0 network-id 1 network-cost 10
        a=candidate:3582517153 1 udp 1686052607 203.0.113.7 54321 typ srflx raddr 192.168.1.10 rport 54321 generation 0 network-id 1 network-cost 10
        a=candidate:2299224595 1 tcp 1518280447 192.168.1.10 9 typ host tcptype active generation 0 network-id 1 network-cost 10
        a=ice-ufrag:Hx3b
        a=ice-pwd:f3dAv5Iq3wW0yT7ilDbG1PcF
        a=ice-options:trickle
        a=fingerprint:sha-256 7B:8B:F0:65:5F:78:E2:51:3B:AC:6F:F3:3F:46:1B:35:DC:B8:5F:64:1A:24:C2:43:F0:A1:58:D0:A1:2C:19:08
        a=setup:actpass
        a=mid:0
        a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=sendonly
        a=msid:6f3c1c5e-0b8f-4a44-9d0a-3d6d5e0c4b4e 2b1d9f3a-6c1e-4f1b-a1c7-0b8f0d6b9a11
        a=rtcp-mux
        a=rtcp-rsize
        a=rtpmap:111 opus/48000/2
        a=rtcp-fb:111 transport-cc
        a=fmtp:111 minptime=10;useinbandfec=1
        a=rtpmap:63 red/48000/2
        a=fmtp:63 111/111
        a=rtpmap:9 G722/8000
        a=rtpmap:0 PCMU/8000
        a=rtpmap:8 PCMA/8000
        a=rtpmap:13 CN/8000
        a=rtpmap:110 telephone-event/48000
        a=rtpmap:126 telephone-event/8000
        a=ssrc:3735928559 cname:8bFq3xZl0aQkP3Yc
        a=ssrc:3735928559 msid:6f3c1c5e-0b8f-4a44-9d0a-3d6d5e0c4b4e 2b1d9f3a-6c1e-4f1b-a1c7-0b8f0d6b9a11
        m=video 9 UDP/TLS/RTP/SAVPF 96 97
        c=IN IP4 0.0.0.0
        a=rtcp:9 IN IP4 0.0.0.0
        a=ice-ufrag:Hx3b
        a=ice-pwd:f3dAv5Iq3wW0yT7ilDbG1PcF
        a=ice-options:trickle
        a=fingerprint:sha-256 7B:8B:F0:65:5F:78:E2:51:3B:AC:6F:F3:3F:46:1B:35:DC:B8:5F:64:1A:24:C2:43:F0:A1:58:D0:A1:2C:19:08
        a=setup:actpass
        a=mid:1
        a=extmap:14 urn:ietf:params:rtp-hdrext:toffset
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:13 urn:3gpp:video-orientation
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:5 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay
        a=extmap:6 http://www.webrtc.org/experiments/rtp-hdrext/video-content-type
        a=extmap:7 http://www.webrtc.org/experiments/rtp-hdrext/video-timing
        a=extmap:8 http://www.webrtc.org/experiments/rtp-hdrext/color-space
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id
        a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id
        a=sendonly
        a=msid:6f3c1c5e-0b8f-4a44-9d0a-3d6d5e0c4b4e 9a7c4e21-3f5d-4b8e-8c2a-1d0e6f7a8b9c
        a=rtcp-mux
        a=rtcp-rsize
        a=rtpmap:96 VP8/90000
        a=rtcp-fb:96 goog-remb
        a=rtcp-fb:96 transport-cc
        a=rtcp-fb:96 ccm fir
        a=rtcp-fb:96 nack
        a=rtcp-fb:96 nack pli
        a=rtpmap:97 rtx/90000
        a=fmtp:97 apt=96
        a=rid:q send
        a=rid:h send
        a=rid:f send
        a=simulcast:send q;h;f

        """

    /// An aiortc (Python) offer: Opus/PCMU/PCMA audio, VP8 and H.264 with RTX by `ssrc-group:FID`,
    /// candidates gathered up front and `end-of-candidates`.
    static let aiortcOffer = """
        v=0
        o=- 3912345678 3912345678 IN IP4 0.0.0.0
        s=-
        t=0 0
        a=group:BUNDLE 0 1
        a=msid-semantic:WMS *
        m=audio 52981 UDP/TLS/RTP/SAVPF 96 0 8
        c=IN IP4 192.168.1.20
        a=sendrecv
        a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:2 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=mid:0
        a=msid:b3c4d5e6-1111-4222-8333-944455556666 7d1e2f30-aaaa-4bbb-8ccc-dddd0000eeee
        a=rtcp:9 IN IP4 0.0.0.0
        a=rtcp-mux
        a=ssrc:1297553441 cname:2a9c4e3f-5b6d-4e7f-8091-a2b3c4d5e6f7
        a=rtpmap:96 opus/48000/2
        a=rtpmap:0 PCMU/8000
        a=rtpmap:8 PCMA/8000
        a=candidate:8d3c0d3b5c6c9b3e3f6f1e4b2a7d9c01 1 udp 2130706431 192.168.1.20 52981 typ host
        a=candidate:1f2e3d4c5b6a79880796a5b4c3d2e1f0 1 udp 1694498815 203.0.113.9 52981 typ srflx raddr 192.168.1.20 rport 52981
        a=end-of-candidates
        a=ice-ufrag:Qm4T
        a=ice-pwd:2yQ7xHcWbXn4lJ0vR8sKpA
        a=fingerprint:sha-256 3A:9C:51:0E:77:B2:C4:19:5D:E0:08:F1:6A:2B:93:DC:40:7E:85:1F:C6:3B:A2:59:0D:E4:71:8F:26:B5:CA:13
        a=setup:actpass
        m=video 52981 UDP/TLS/RTP/SAVPF 97 98 99 100
        c=IN IP4 192.168.1.20
        a=sendrecv
        a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:3 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=mid:1
        a=msid:b3c4d5e6-1111-4222-8333-944455556666 0f1e2d3c-4b5a-4697-8877-665544332211
        a=rtcp:9 IN IP4 0.0.0.0
        a=rtcp-mux
        a=ssrc-group:FID 2961488421 1543672306
        a=ssrc:2961488421 cname:2a9c4e3f-5b6d-4e7f-8091-a2b3c4d5e6f7
        a=ssrc:1543672306 cname:2a9c4e3f-5b6d-4e7f-8091-a2b3c4d5e6f7
        a=rtpmap:97 VP8/90000
        a=rtcp-fb:97 nack
        a=rtcp-fb:97 nack pli
        a=rtcp-fb:97 goog-remb
        a=rtpmap:98 rtx/90000
        a=fmtp:98 apt=97
        a=rtpmap:99 H264/90000
        a=rtcp-fb:99 nack
        a=rtcp-fb:99 nack pli
        a=rtcp-fb:99 goog-remb
        a=fmtp:99 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f
        a=rtpmap:100 rtx/90000
        a=fmtp:100 apt=99
        a=candidate:8d3c0d3b5c6c9b3e3f6f1e4b2a7d9c01 1 udp 2130706431 192.168.1.20 52981 typ host
        a=candidate:1f2e3d4c5b6a79880796a5b4c3d2e1f0 1 udp 1694498815 203.0.113.9 52981 typ srflx raddr 192.168.1.20 rport 52981
        a=end-of-candidates
        a=ice-ufrag:Qm4T
        a=ice-pwd:2yQ7xHcWbXn4lJ0vR8sKpA
        a=fingerprint:sha-256 3A:9C:51:0E:77:B2:C4:19:5D:E0:08:F1:6A:2B:93:DC:40:7E:85:1F:C6:3B:A2:59:0D:E4:71:8F:26:B5:CA:13
        a=setup:actpass

        """

    /// `text` with every LF line ending turned into CRLF, as SDP is sent (RFC 8866 §5).
    static func crlf(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { $0 + "\r\n" }.joined()
    }
}
