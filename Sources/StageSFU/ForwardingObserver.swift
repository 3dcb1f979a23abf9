/// Why the SFU did not forward a packet, or did not pass on a request. StageSFU has no metrics
/// of its own: its owner counts these (the server, in `proscenium_media_dropped_total`).
public enum ForwardingDrop: Sendable, Hashable, CaseIterable {
    /// A packet of a track its publisher muted; counted once per packet, not per consumer.
    case muted
    /// A packet not sent to one consumer because it is paused (its subscriber's transport is
    /// not connected yet).
    case consumerPaused
    /// A packet of a simulcast layer, or of a VP8 temporal layer, one consumer does not receive
    /// now (expected: every consumer of a simulcast track drops the layers it does not forward).
    case layerNotSelected
    /// A sequence number a subscriber reported lost (NACK) that the packet cache no longer
    /// holds, or that belongs to a track without a cache (audio): not retransmitted.
    case nackNotCached
    /// A video packet the producer holds already: an RTX padding probe (browsers with
    /// transport-cc probe by resending what they sent) or a duplicate from the network. Not
    /// forwarded again, nor counted in the layer's bitrate. Also, per consumer, a late packet
    /// that fills no gap in its stream (of a frame it skipped, or one it was sent already).
    case duplicate
    /// A keyframe request not sent towards the publisher because one went less than
    /// `Producer.keyframeRequestInterval` ago (that one will bring the keyframe).
    case keyframeRequestThrottled
}

/// Why the SFU asks a publisher for a keyframe (a PLI towards it).
public enum KeyframeRequestReason: String, Sendable, Hashable, CaseIterable {
    /// A consumer was attached to the producer (a new subscriber, or a hand-over).
    case newConsumer = "new_consumer"
    /// A simulcast consumer waits for a keyframe of the layer it switches to.
    case layerSwitch = "layer_switch"
    /// A subscriber sent a PLI or FIR.
    case subscriberRequest = "subscriber_pli"
    /// A subscriber's transport connected: its paused consumers start at a keyframe.
    case subscriberConnected = "subscriber_connected"
    /// The publisher's transport connected (or reconnected).
    case publisherConnected = "publisher_connected"
    /// The publisher unmuted the track.
    case unmuted
    /// A subscriber chose another simulcast layer.
    case preferredLayer = "preferred_layer"
    /// The stream allocator moved a subscriber to another layer to fit its link.
    case allocation
    /// Packets lost on the way from the publisher could not be recovered by NACKs.
    case upstreamLoss = "upstream_loss"
}

/// What the forwarding path tells its owner, to be counted. Called on the media event loop,
/// per packet for drops: an implementation must not allocate or lock.
public protocol ForwardingObserver: AnyObject {
    /// A packet or request the SFU dropped, and why.
    func dropped(_ drop: ForwardingDrop)
    /// A keyframe request went towards the publisher (one PLI per SSRC asked).
    func keyframeRequested(_ reason: KeyframeRequestReason)
    /// A subscriber's NACK: `requested` sequence numbers, of which `answered` were resent.
    func retransmitted(requested: Int, answered: Int)
    /// The SFU asked the publisher for `count` packets lost on the way in (a NACK towards it).
    func retransmissionRequested(count: Int)
}
