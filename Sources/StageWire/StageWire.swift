/// Media wire formats (see the folders): RTP, RTCP, STUN, SDP, VP8, demultiplexing.
public enum StageWire {}
