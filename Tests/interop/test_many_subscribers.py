"""Many subscribers with different links on one stage: a CLI host publishes 1280×720 in three
simulcast layers (320, 640 and 1280 pixels wide); each guest (a CLI `stage join`) sits behind its
own emulated downlink (linkem.py), narrow or wide in turn. Each must end on the layer its link
carries (the server's per-subscriber estimate and stream allocator: 320 px on the narrow links,
1280 px on the wide ones), and the host must encode only the layers in use (dynacast): q and f,
not h, which nobody receives; q alone once every link is narrow. The host's CPU time per second
is printed for both (printed, not judged: bench_dynacast.py measures it).

Why no middle link: this test pattern's 640 and 1280 px layers differ by less than 2× in rate
(about 200 and 350 kbps at 15 fps; a 470 kbps link carried 1280 px, a 350 kbps one not 640 px
once the allocator's 20 % margin and its probe's headroom were paid), closer than an emulated
link's cap separates reliably; a camera's layers differ 3–4×.

Why 200 kbps for the narrow links: the q layer runs at its 150 kbps target (its keyframes
included; 165 kbps on the wire), so a 150 kbps link (this test's narrow link until 2026-11-28)
carried no layer: its guests lost 42–52 % of what was sent and froze for 12–22 s of 47, while
the test only looked at their width. At 250 kbps the 640 px layer (about 200 kbps) fitted now
and then and guests stepped up and down. A narrow guest must now also decode at least
MIN_NARROW_FPS frames a second.

MANY_SUBSCRIBERS guests (6 by default, so CI stays within its time on 2 cores; 20 for the
benchmark, `MANY_SUBSCRIBERS=20 pytest -s Tests/interop/test_many_subscribers.py`, and
bench_many_subscribers.py draws the 20-guest run beside one without adaptation)."""
import datetime
import os
import time
from types import SimpleNamespace

from offnet import LabServer, Participant, _at, counter_samples
from test_dynacast import _cpu_seconds, _layers
from test_off_loopback import _callbacks

SUBSCRIBERS = int(os.environ.get("MANY_SUBSCRIBERS", "6"))
# Downlink caps and the layer width each carries.
CAPS = [(200_000, 320), (3_000_000, 1280)]
SETTLE_SECONDS = 25
# How long the links stay narrowed when the run does not wait for the host to encode q alone.
NARROWED_SECONDS = 25
CPU_SECONDS = 8
# How long after the host encodes q alone every guest may take to show a q frame.
LANDING_SECONDS = 15
# Frames a second each narrow-link guest decodes at least over the mixed phase's last
# RATE_SECONDS (the host sends 15; on 150 kbps links they decoded 6–9, on 200 kbps 14–15). The
# host publishes no temporal layers (`--temporal-layers 1`): with L1T3, the SDK's default, the
# narrow guests stay on the whole of q, but decoded 7.6–14.8 frames a second over five runs
# (15.0 and 14.9 with L1T1 in the same session): each failed probe of h (every 5 s on a 200 kbps
# link) costs the next report 10–30 % of its packets. test_temporal_layers.py is where temporal
# steps are checked.
MIN_NARROW_FPS = 10
RATE_SECONDS = 15
# The host's encoded layers are judged over the mixed phase's last LAYER_SECONDS, once a second:
# q and f in every sample, h in at most H_SECONDS_ALLOWED of them. One snapshot was judged
# until 2026-12-01, and CI caught h in it once while every guest ended on its layer (a guest
# stepping for a second, which dynacast follows, is not a host encoding what nobody receives).
LAYER_SECONDS = 8
H_SECONDS_ALLOWED = 2


def _width(guest):
    widths = counter_samples(guest, "host", "frameWidth")
    return widths[-1][1] if widths else 0


def frame_rate(frames, start, end):
    """Frames decoded a second from `start` to `end` (wall times), over the part of that span
    the counter's once-a-second samples cover (read linearly between them); 0 if none."""
    if not frames:
        return 0
    start, end = max(start, frames[0][0]), min(end, frames[-1][0])
    return (_at(frames, end) - _at(frames, start)) / (end - start) if end > start else 0


def _host_statuses(host):
    return [o for o in host.objects() if o.get("event") == "status" and o.get("isLocal") == "true" and o.get("kind") == "video"]


def _host_layers(host):
    statuses = _host_statuses(host)
    return _layers(statuses[-1]) if statuses else None


def _host_layer_samples(host, start, end):
    """(wall time, rids encoded) of the host's once-a-second statuses from `start` to `end`."""
    samples = []
    for status in _host_statuses(host):
        at = datetime.datetime.fromisoformat(status["time"].replace("Z", "+00:00")).timestamp()
        if start <= at <= end and _layers(status) is not None:
            samples.append((at, _layers(status)))
    return samples


def _host_cpu(host, seconds):
    """The host CLI's CPU seconds per second over `seconds` (`ip netns exec` execs it: same pid)."""
    pid = host.proc.pid
    with open(f"/proc/{pid}/comm") as comm:
        assert comm.read().strip() == "stage", "not the stage process"
    before, started = _cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    return (_cpu_seconds(pid) - before) / (time.monotonic() - started)


def _layer_timeline(samples, reference):
    """The host's layers a second, as seconds from `reference`: rids."""
    return " ".join(f"{t - reference:+.0f}s:{','.join(sorted(layers))}" for t, layers in samples)


def run(netlab, tmp_path, subscribers, server_args=(), wait_for_q_alone=True):
    """One run: `subscribers` guests on alternating caps for SETTLE_SECONDS, then every link
    narrowed until the host encodes q alone and every guest shows a 320 px frame (at most
    LANDING_SECONDS more), or, with `wait_for_q_alone` false, for NARROWED_SECONDS. Returns
    the participants (left), the widths each guest decoded at the end of both phases, the host's layers and CPU, and when the links narrowed."""
    srv = netlab.public_host("srv")
    server = LabServer(netlab, srv, tmp_path, list(server_args)).start()
    host_box = netlab.public_host("host")
    boxes = [netlab.public_host(f"g{index}", shaped=True) for index in range(subscribers)]
    for index, box in enumerate(boxes):
        netlab.shape(box, "down", rate_bps=CAPS[index % len(CAPS)][0], queue_ms=100)
    for box in [srv, host_box, *boxes]:
        netlab.set_hosts(box, {"stage.test": [srv.v4]})
    arn = server.create_stage("many")
    host = Participant(netlab, host_box, tmp_path, "host", server.token(arn, "host", "PUBLISH")["token"],
                       "--camera", "test", "--mic", "none", "--size", "1280x720", "--fps", "15", "--simulcast", "on",
                       "--temporal-layers", "1", "--status-interval", "1")
    guests = [Participant(netlab, box, tmp_path, f"guest{index}", server.token(arn, f"guest{index}", "SUBSCRIBE")["token"],
                          "--strategy", "viewer", "--camera", "none", "--mic", "none", "--status-interval", "1")
              for index, box in enumerate(boxes)]
    try:
        for guest in guests:
            guest.wait_for(lambda p: any(n.startswith("didAddStreams") for n in _callbacks(p, "host")), 60, "the host's streams")
        joined = time.time()
        time.sleep(SETTLE_SECONDS)
        widths = [_width(guest) for guest in guests]
        layers_mixed = _host_layer_samples(host, time.time() - LAYER_SECONDS, time.time())
        cpu_mixed = _host_cpu(host, CPU_SECONDS)
        for box in boxes:
            netlab.shape(box, "down", rate_bps=CAPS[0][0], queue_ms=100)
        narrowed = time.time()
        if wait_for_q_alone:
            host.wait_for(lambda p: _host_layers(p) == {"q"}, 45, "the host encoding q alone")
            # The host stops f as soon as every consumer is switching to q; a guest shows 320 px
            # once the q keyframe it waits for comes through its narrowed link, which can take
            # seconds more (CI saw one guest still on its last 1280 px frame at this moment).
            deadline = time.monotonic() + LANDING_SECONDS
            while time.monotonic() < deadline and any(_width(guest) != CAPS[0][1] for guest in guests):
                time.sleep(0.5)
        else:
            time.sleep(NARROWED_SECONDS)
        narrowed_widths = [_width(guest) for guest in guests]
        cpu_narrow = _host_cpu(host, CPU_SECONDS)
    finally:
        for participant in [*guests, host]:
            participant.leave()
        server.stop()
    return SimpleNamespace(host=host, guests=guests, joined=joined, narrowed=narrowed, ended=time.time(), widths=widths,
                           layers_mixed=layers_mixed, cpu_mixed=cpu_mixed, narrowed_widths=narrowed_widths, cpu_narrow=cpu_narrow)


def test_each_subscriber_gets_the_layer_its_link_carries_and_the_host_encodes_only_those(netlab, tmp_path):
    result = run(netlab, tmp_path, SUBSCRIBERS)
    widths, layers_mixed, cpu_mixed = result.widths, result.layers_mixed, result.cpu_mixed
    narrowed_widths, cpu_narrow, guests = result.narrowed_widths, result.cpu_narrow, result.guests
    expected = [CAPS[index % len(CAPS)][1] for index in range(SUBSCRIBERS)]
    decode_errors = [max((n for _, n in counter_samples(guest, "host", "decodeErrors")), default=None) for guest in guests]
    # The guests' status comes once a second: the span ends a second before the links narrowed.
    rate_span = (result.narrowed - 1 - RATE_SECONDS, result.narrowed - 1)
    narrow_fps = [round(frame_rate(counter_samples(guest, "host", "framesDecoded"), *rate_span), 1)
                  for index, guest in enumerate(guests) if index % len(CAPS) == 0]
    print(f"{SUBSCRIBERS} subscribers, caps {[c for c, _ in CAPS]} bps in turn: decoded widths {widths} "
          f"(expected {expected}), narrow-link guests at {narrow_fps} frames a second; "
          f"the host encoded {_layer_timeline(layers_mixed, result.narrowed)} at {cpu_mixed:.2f} CPU s/s; every link "
          f"narrowed: widths {narrowed_widths}, the host encoded q alone at {cpu_narrow:.2f} CPU s/s ({cpu_narrow / cpu_mixed:.2f}×); "
          f"decode errors per guest {decode_errors}")
    # With margins for a shared 2-core machine: at most one subscriber a layer off.
    assert sum(w != e for w, e in zip(widths, expected)) <= 1, (widths, expected)
    guest_widths = [counter_samples(guest, "host", "frameWidth") for guest in guests]
    on_h = {round(t - result.narrowed): [[width for at, width in widths if abs(at - t) <= 2] for widths in guest_widths]
            for t, layers in layers_mixed if "h" in layers}
    assert len(layers_mixed) >= LAYER_SECONDS - 2, layers_mixed
    assert all({"q", "f"} <= layers for _, layers in layers_mixed), "q and f are in use"
    assert sum("h" in layers for _, layers in layers_mixed) <= H_SECONDS_ALLOWED, \
        f"h encoded while nobody stays on it; guests' widths around then: {on_h}"
    assert all(fps >= MIN_NARROW_FPS for fps in narrow_fps), f"narrow-link guests decoded {narrow_fps} frames a second"
    assert all(w == CAPS[0][1] for w in narrowed_widths), narrowed_widths
    # The 3 Mbps guests went from 1280 to 320 px when their links narrowed, each at a keyframe.
    assert decode_errors == [0] * SUBSCRIBERS, decode_errors
