"""A subscriber's link narrows and widens mid-stream: the server's stream allocator moves it to
the simulcast layer its link carries and back (its estimate from the subscriber's receiver
reports), against a reference run with adaptation switched off. A CLI host publishes three
layers (320×180, 640×360, 1280×720); a CLI guest behind a link emulator watches. Timeline
printed; the benchmark's strict targets (2 s down, 10 s back up, no freeze over 1 s) are
checked here with margins for a shared 2-core machine."""
import time

from offnet import LabServer, Participant, counter_samples
from test_off_loopback import _callbacks

WIDE, NARROW = 2_500_000, 300_000
WIDE_SECONDS, NARROW_SECONDS, RECOVERY_SECONDS = 12, 20, 25


def _samples(guest):
    """(wall time, frame width, frames decoded) of the guest's status objects about the host's video."""
    widths = dict(counter_samples(guest, "host", "frameWidth"))
    return [(t, widths.get(t, 0), n) for t, n in counter_samples(guest, "host", "framesDecoded")]


def _first(samples, after, predicate):
    """Seconds from `after` to the first sample at or after it whose width satisfies `predicate`."""
    return next((t - after for t, width, _ in samples if t >= after and predicate(width)), None)


def _longest_stall(samples, start, end):
    """The longest time in [start, end] without a new decoded frame (1 s sampling resolution)."""
    times = [start] + [t for (t, _, n), (_, _, before) in zip(samples[1:], samples) if start <= t <= end and n > before] + [end]
    return max(b - a for a, b in zip(times, times[1:]))


def _run(netlab, tmp_path, name, adaptation):
    srv = netlab.public_host(f"srv{name}")
    server = LabServer(netlab, srv, tmp_path / name, [] if adaptation else ["--no-downlink-adaptation"]).start()
    host_box, guest_box = netlab.public_host(f"host{name}"), netlab.public_host(f"guest{name}", shaped=True)
    netlab.shape(guest_box, "down", rate_bps=WIDE, queue_ms=100)
    for box in (srv, host_box, guest_box):
        netlab.set_hosts(box, {"stage.test": [srv.v4]})
    arn = server.create_stage(f"narrowing-{name}")
    host = Participant(netlab, host_box, tmp_path / name, "host", server.token(arn, "host", "PUBLISH")["token"],
                       "--camera", "test", "--mic", "tone", "--size", "1280x720", "--fps", "20", "--simulcast", "on",
                       "--status-interval", "1")
    guest = Participant(netlab, guest_box, tmp_path / name, "guest", server.token(arn, "guest", "SUBSCRIBE")["token"],
                        "--strategy", "viewer", "--camera", "none", "--mic", "none", "--status-interval", "1")
    try:
        guest.wait_for(lambda p: any(n.startswith("didAddStreams") for n in _callbacks(p, "host")), 45, "the host's streams")
        time.sleep(WIDE_SECONDS)
        dropped_at = time.time()
        netlab.shape(guest_box, "down", rate_bps=NARROW, queue_ms=100)
        time.sleep(NARROW_SECONDS)
        widened_at = time.time()
        netlab.shape(guest_box, "down", rate_bps=WIDE, queue_ms=100)
        time.sleep(RECOVERY_SECONDS)
        ended_at = time.time()
        metrics = netlab.run(srv, ["curl", "-sf", "-m", "5", "http://127.0.0.1:8080/metrics"], check=False).stdout
    finally:
        guest.leave()
        host.leave()
        server.stop()
    print(f"\n[{name}] " + " ".join(line for line in metrics.splitlines()
                                   if line.startswith(("proscenium_media_probes_total", "proscenium_media_layer_allocations_total"))))
    samples = _samples(guest)
    timeline = " ".join(f"{t - dropped_at:+.0f}s:{w}/{n}" for t, w, n in samples)
    print(f"\n[{name}] timeline (seconds from the drop: width/frames decoded): {timeline}")
    return samples, dropped_at, widened_at, ended_at, guest


def test_a_narrowing_link_moves_the_subscriber_down_and_back_up(netlab, tmp_path):
    for name in ("adaptive", "fixed"):
        (tmp_path / name).mkdir()
    samples, dropped, widened, _, _ = _run(netlab, tmp_path, "adaptive", adaptation=True)
    reference, r_dropped, r_widened, _, _ = _run(netlab, tmp_path, "fixed", adaptation=False)

    top_before = max((w for t, w, _ in samples if t < dropped), default=0)
    down_after = _first(samples, dropped, lambda w: 0 < w <= 320)
    up_after = _first(samples, widened, lambda w: w >= 1280)
    stall = _longest_stall(samples, dropped, widened)
    decoded_narrow = [n for t, _, n in samples if dropped <= t <= widened]
    reference_narrow = [n for t, _, n in reference if r_dropped <= t <= r_widened]
    frames = decoded_narrow[-1] - decoded_narrow[0] if len(decoded_narrow) > 1 else 0
    reference_frames = reference_narrow[-1] - reference_narrow[0] if len(reference_narrow) > 1 else 0
    reference_stall = _longest_stall(reference, r_dropped, r_widened)
    print(f"2.5 Mbps → 300 kbps → 2.5 Mbps: top layer before the drop {top_before} px wide; on 320 px {down_after} s after "
          f"the drop; longest stall while narrow {stall:.1f} s ({frames} frames decoded in {NARROW_SECONDS} s); back on "
          f"1280 px {up_after} s after the link widened. Reference without adaptation: longest stall {reference_stall:.1f} s, "
          f"{reference_frames} frames decoded while narrow")
    assert top_before >= 1280, "never on the top layer on the wide link"
    assert down_after is not None and down_after <= 5, "did not move down to the layer that fits"
    assert stall <= 2.5, "froze while the link was narrow"
    assert up_after is not None and up_after <= 20, "did not climb back to the top layer"
    assert frames >= 2 * max(reference_frames, 1) or reference_stall >= 2 * stall, "no better than without adaptation"
