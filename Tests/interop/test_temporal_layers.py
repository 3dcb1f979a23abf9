"""A link narrower than the lowest simulcast layer: with VP8 temporal layers (the host publishes
L1T3, the SDK's default) the server forwards that layer at a half or a quarter of its frame
rate instead of overflowing the link; without them (`--temporal-layers 1`, the reference in the
same test) the lowest layer is all it has. A CLI host publishes three layers (320×180 at about
150 kbps, 640×360, 1280×720) at 20 frames a second; a CLI guest and headless Chromium (WHEP)
watch, each behind a 180 kbps downlink (the lowest layer and the host's audio need about
210 kbps with their headers)."""
import time

from offnet import HTTP_PORT, LabServer, Participant, counter_samples
from test_downlink_adaptation import VIEWER_STATS, _gauge, _scrape
from test_lossy_links import _participant_id
from test_media_chromium_simulcast import publisher_page
from test_off_loopback import _callbacks
from whep_page import LabChromium, viewer_page

NARROW = 180_000
# For one 640×360 stream of up to 500 kbps: its temporal layer 0 (about 40 %) and the audio fit.
SINGLE_NARROW = 300_000
SECONDS = 30
# Frame rate and stalls are judged over the last seconds: the first ones are the estimate's
# way down from the top layer, which every subscriber starts on.
JUDGED_SECONDS = 15


def _rate_and_stall(samples, start, end):
    """(frames decoded a second, longest time without a new frame) over [start, end] of
    (time, frames decoded) samples taken once a second."""
    window = [(t, n) for t, n in samples if start <= t <= end]
    if len(window) < 2:
        return 0.0, end - start
    rate = (window[-1][1] - window[0][1]) / (window[-1][0] - window[0][0])
    times = [start] + [t for (t, n), (_, before) in zip(window[1:], window) if n > before] + [end]
    return rate, max(b - a for a, b in zip(times, times[1:]))


def _run(netlab, tmp_path, name, temporal_layers, simulcast=True, narrow=NARROW):
    """One stage: host, CLI guest and Chromium viewer on `narrow` links. Returns what each decoded.
    Without `simulcast` the host sends one 640×360 stream (at most 500 kbps)."""
    (tmp_path / name).mkdir()
    srv = netlab.public_host(f"srv{name}")
    server = LabServer(netlab, srv, tmp_path / name).start()
    host_box = netlab.public_host(f"host{name}")
    guest_box, browser_box = netlab.public_host(f"guest{name}", shaped=True), netlab.public_host(f"web{name}", shaped=True)
    for box in (guest_box, browser_box):
        netlab.shape(box, "down", rate_bps=narrow, queue_ms=100)
    for box in (srv, host_box, guest_box, browser_box):
        netlab.set_hosts(box, {"stage.test": [srv.v4]})
    arn = server.create_stage(f"temporal-{name}")
    host = Participant(netlab, host_box, tmp_path / name, "host", server.token(arn, "host", "PUBLISH")["token"],
                       "--camera", "test", "--mic", "tone", "--size", "1280x720" if simulcast else "640x360", "--fps", "20",
                       "--simulcast", "on" if simulcast else "off",
                       "--temporal-layers", str(temporal_layers), "--status-interval", "1")
    host.wait_for(lambda p: any(e.get("event") == "participantDidJoin" and e.get("isLocal") == "true" for e in p.events()),
                  30, "joined")
    guest = Participant(netlab, guest_box, tmp_path / name, "guest", server.token(arn, "guest", "SUBSCRIBE")["token"],
                        "--strategy", "viewer", "--camera", "none", "--mic", "none", "--status-interval", "1")
    browser = LabChromium(netlab, browser_box, tmp_path / name,
                          viewer_page(f"http://stage.test:{HTTP_PORT}/whep/{_participant_id(host)}",
                                      server.token(arn, "viewer", "SUBSCRIBE")["token"], VIEWER_STATS),
                          seconds=SECONDS + 90)
    try:
        guest.wait_for(lambda p: any(n.startswith("didAddStreams") for n in _callbacks(p, "host")), 45, "the host's streams")
        browser.wait_decoding()
        start = time.time()
        time.sleep(SECONDS)
        end = time.time()
        metrics = _scrape(netlab, srv)
    finally:
        guest.leave()
        host.leave()
        browser.close()
        server.stop()
    judged = (end - JUDGED_SECONDS, end)
    guest_rate, guest_stall = _rate_and_stall(counter_samples(guest, "host", "framesDecoded"), *judged)
    widths = [w for t, w in counter_samples(guest, "host", "frameWidth") if judged[0] <= t]
    stats = browser.objects()
    web_rate, web_stall = _rate_and_stall([(s["time"], s["framesDecoded"]) for s in stats], *judged)
    last = stats[-1] if stats else {}
    decode_errors = max((n for _, n in counter_samples(guest, "host", "decodeErrors")), default=None)
    temporal = {label: _gauge(metrics, f'proscenium_media_video_consumers_by_temporal_layer{{temporal="{label}"}}')
                for label in ("0", "1", "2", "all")}
    print(f"\n[L1T{temporal_layers}{'' if simulcast else ', one stream'}] over the last {JUDGED_SECONDS} s of {SECONDS} on "
          f"{narrow // 1000} kbps links: "
          f"CLI guest {guest_rate:.1f} frames/s, longest stall {guest_stall:.1f} s, widths {sorted(set(widths))}, "
          f"decode errors {decode_errors}; Chromium {web_rate:.1f} frames/s, longest stall {web_stall:.1f} s, "
          f"freezes {last.get('freezeCount')} ({last.get('totalFreezesDuration', 0):.1f} s in all), PLIs {last.get('pliCount')}; "
          f"consumers by temporal layer {temporal}; started {start - judged[0]:+.0f} s")
    return dict(guest_rate=guest_rate, guest_stall=guest_stall, widths=widths, decode_errors=decode_errors,
                web_rate=web_rate, web_stall=web_stall, web_freezes=last.get("freezeCount"), temporal=temporal)


def test_a_link_below_the_lowest_layer_gets_it_at_a_lower_frame_rate(netlab, tmp_path):
    with_temporal = _run(netlab, tmp_path, "t3", 3)
    reference = _run(netlab, tmp_path, "t1", 1)
    # Both viewers are forwarded temporal layers 0–1 or 0 of the lowest layer, not all of it.
    assert (with_temporal["temporal"]["0"] or 0) + (with_temporal["temporal"]["1"] or 0) == 2, with_temporal["temporal"]
    assert with_temporal["widths"] and max(with_temporal["widths"]) <= 320, with_temporal["widths"]
    # A quarter of 20 frames a second is 5, a half 10: a steady picture at either, without stalls.
    assert with_temporal["guest_rate"] >= 4, with_temporal
    assert with_temporal["web_rate"] >= 4, with_temporal
    assert with_temporal["guest_stall"] <= 2.5 and with_temporal["web_stall"] <= 2.5, with_temporal
    # Skipped frames leave no gap in sequence numbers or PictureIDs: libvpx decodes every frame
    # the CLI guest assembles, and Chromium's stall bound above holds (it would wait for a
    # missing PictureID).
    assert with_temporal["decode_errors"] == 0, with_temporal
    # Without temporal layers the same links carry only the whole lowest layer, which overflows them.
    assert reference["temporal"]["all"] == 2, reference["temporal"]
    assert (with_temporal["guest_stall"] < reference["guest_stall"] or with_temporal["guest_rate"] > reference["guest_rate"]), \
        (with_temporal, reference)


def test_a_stream_without_simulcast_reaches_a_narrow_link_at_a_lower_frame_rate(netlab, tmp_path):
    """One 640×360 stream (WHIP publishers and `--simulcast off` hosts send no other): on a link
    that carries its temporal layer 0 but not all of it, the allocator forwards part of its
    frames, as it does below a simulcast track's lowest layer."""
    with_temporal = _run(netlab, tmp_path, "s3", 3, simulcast=False, narrow=SINGLE_NARROW)
    reference = _run(netlab, tmp_path, "s1", 1, simulcast=False, narrow=SINGLE_NARROW)
    assert (with_temporal["temporal"]["0"] or 0) + (with_temporal["temporal"]["1"] or 0) == 2, with_temporal["temporal"]
    assert with_temporal["guest_rate"] >= 4 and with_temporal["web_rate"] >= 4, with_temporal
    assert with_temporal["guest_stall"] <= 2.5 and with_temporal["web_stall"] <= 2.5, with_temporal
    assert with_temporal["decode_errors"] == 0, with_temporal
    # Chromium renders the thinned stream without freezes; the whole one overflowed (18 and 19 in two runs).
    assert with_temporal["web_freezes"] is not None and with_temporal["web_freezes"] < reference["web_freezes"], (with_temporal, reference)
    # A stream without temporal layers has nothing to thin: its consumers are not in the gauge.
    assert sum(reference["temporal"].values()) == 0, reference["temporal"]
    assert (with_temporal["guest_stall"] < reference["guest_stall"] or with_temporal["guest_rate"] > reference["guest_rate"]), \
        (with_temporal, reference)


def test_chromium_publishing_l1t3_over_whip_reaches_a_narrow_link_at_a_lower_frame_rate(netlab, tmp_path):
    """Chromium as a WHIP publisher with temporal layers: its TIDs and Y bits (RFC 7741 §4.2) let
    the server give a CLI guest on a narrow link part of its frames, while a guest on a wide
    link gets them all."""
    srv = netlab.public_host("srv")
    server = LabServer(netlab, srv, tmp_path).start()
    browser_box, narrow_box, wide_box = netlab.public_host("browser"), netlab.public_host("narrow", shaped=True), \
        netlab.public_host("wide")
    netlab.shape(narrow_box, "down", rate_bps=SINGLE_NARROW, queue_ms=100)
    for box in (srv, browser_box, narrow_box, wide_box):
        netlab.set_hosts(box, {"stage.test": [srv.v4]})
    arn = server.create_stage("chromium-l1t3")
    # One VP8 stream with three temporal layers (scalabilityMode, W3C webrtc-svc), at most 500 kbps.
    html = publisher_page(f"http://stage.test:{HTTP_PORT}/whip", server.token(arn, "chromium", "PUBLISH")["token"],
                          video="{width: 640, height: 360, frameRate: 20}",
                          encodings="[{scalabilityMode: 'L1T3', maxBitrate: 500000}]")
    browser = LabChromium(netlab, browser_box, tmp_path, html, seconds=JUDGED_SECONDS + 150)
    guests = {name: Participant(netlab, box, tmp_path, name, server.token(arn, name, "SUBSCRIBE")["token"],
                                "--strategy", "viewer", "--camera", "none", "--mic", "none", "--status-interval", "1")
              for name, box in (("narrow", narrow_box), ("wide", wide_box))}
    try:
        for guest in guests.values():
            guest.wait_for(lambda p: any(n.startswith("didAddStreams") for n in _callbacks(p, "chromium")), 45, "Chromium's streams")
        # Chromium starts at 320×180 and raises its resolution as its own estimate grows: the
        # narrow link overflows some seconds in. Judged from when the server thinned the stream.
        started, thinned_at = time.time(), None
        while thinned_at is None and time.time() - started < 60:
            gauges = _scrape(netlab, srv)
            if any(_gauge(gauges, f'proscenium_media_video_consumers_by_temporal_layer{{temporal="{label}"}}') for label in "01"):
                thinned_at = time.time()
            time.sleep(1)
        assert thinned_at, "the narrow guest's consumer was never thinned"
        time.sleep(JUDGED_SECONDS)
        end = time.time()
        metrics = _scrape(netlab, srv)
    finally:
        for guest in guests.values():
            guest.leave()
        browser.close()
        server.stop()
    judged = (thinned_at, end)
    rates = {name: _rate_and_stall(counter_samples(guest, "chromium", "framesDecoded"), *judged) for name, guest in guests.items()}
    errors = {name: max((n for _, n in counter_samples(guest, "chromium", "decodeErrors")), default=None)
              for name, guest in guests.items()}
    temporal = {label: _gauge(metrics, f'proscenium_media_video_consumers_by_temporal_layer{{temporal="{label}"}}')
                for label in ("0", "1", "2", "all")}
    print(f"\nChromium L1T3 over WHIP: thinned for the narrow guest {thinned_at - started:.0f} s "
          f"in; over the {JUDGED_SECONDS} s after that: guest on {SINGLE_NARROW // 1000} kbps {rates['narrow'][0]:.1f} frames/s "
          f"(longest stall {rates['narrow'][1]:.1f} s), guest on a wide link {rates['wide'][0]:.1f} frames/s; decode errors "
          f"{errors}; consumers by temporal layer at the end {temporal}")
    # One consumer thinned (temporal layer 0 or 0–1: Chromium sent TIDs), the other forwarded whole.
    assert (temporal["0"] or 0) + (temporal["1"] or 0) == 1 and temporal["all"] == 1, temporal
    # A quarter or a half of 20 frames a second (5 or 10), steady.
    assert 3 <= rates["narrow"][0] <= 13 and rates["narrow"][1] <= 2.5, rates
    assert rates["wide"][0] >= 15, rates
    assert errors == {"narrow": 0, "wide": 0}, errors
