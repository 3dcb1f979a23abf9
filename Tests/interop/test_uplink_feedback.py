"""Transport-cc feedback to a publisher (draft-holmer-rmcat-transport-wide-cc-extensions-01):
headless Chromium publishes over WHIP from behind a link emulator whose uplink steps
2.5 Mbps → 300 kbps → 2.5 Mbps. The server reports each packet's arrival every 100 ms, and
Chromium's send-side estimator (GCC, delay- and loss-based) follows the link: its
`availableOutgoingBitrate` falls to what fits while the link is narrow and climbs back after.
The second run is the same page with transport-cc taken out of its offer: then the server's REMB
is what holds Chromium, cut from the loss it sees on the uplink (`UplinkEstimator`). `-s` prints
both timelines."""
import time

from offnet import HTTP_PORT, LabServer, Participant, counter_samples
from test_lossy_links import _metric
from test_off_loopback import _callbacks
from whep_page import LabChromium

WIDE, NARROW = 2_500_000, 300_000
WIDE_SECONDS, NARROW_SECONDS, RECOVERY_SECONDS = 20, 20, 25

# The WHIP publisher page: Chromium's fake camera at 1280×720, 20 fps, one layer. `STRIP_TCC`
# takes transport-cc out of the offer (the reference). Logs once a second what its sender sees.
PUBLISHER_PAGE = """<!doctype html><meta charset=utf-8><script>
(async () => {
  try {
    const stream = await navigator.mediaDevices.getUserMedia({video: {width: 1280, height: 720, frameRate: 20}});
    const pc = new RTCPeerConnection();
    const sender = pc.addTransceiver(stream.getVideoTracks()[0], {direction: 'sendonly'}).sender;
    await pc.setLocalDescription();
    await new Promise(r => { if (pc.iceGatheringState === 'complete') r(); else pc.onicegatheringstatechange = () => pc.iceGatheringState === 'complete' && r(); });
    let sdp = pc.localDescription.sdp;
    if (STRIP_TCC) sdp = sdp.split('\\r\\n').filter(l => !l.includes('transport-cc') && !l.includes('transport-wide-cc')).join('\\r\\n');
    const response = await fetch('WHIP_URL', {method: 'POST', body: sdp,
      headers: {'Authorization': 'Bearer WHIP_TOKEN', 'Content-Type': 'application/sdp'}});
    const answer = await response.text();
    console.log('ANSWER ' + JSON.stringify({status: response.status, transportCC: /a=rtcp-fb:\\d+ transport-cc/.test(answer)}));
    await pc.setRemoteDescription({type: 'answer', sdp: answer});
    // Bits go to the rate, not to stepping the resolution down and up (Chromium's 'balanced').
    const parameters = sender.getParameters();
    parameters.degradationPreference = 'maintain-resolution';
    await sender.setParameters(parameters);
    setInterval(async () => {
      const out = {t: Date.now() / 1000}, report = await pc.getStats();
      let selected;  // the pair in use: Chromium may mark more than one nominated
      report.forEach(s => { if (s.type === 'transport') selected = s.selectedCandidatePairId; });
      report.forEach(s => {
        if (s.type === 'outbound-rtp' && s.kind === 'video') Object.assign(out, {bytesSent: s.bytesSent,
          framesSent: s.framesSent, targetBitrate: s.targetBitrate, frameWidth: s.frameWidth,
          qualityLimitationReason: s.qualityLimitationReason});
        if (s.type === 'candidate-pair' && s.id === selected) Object.assign(out, {availableOutgoingBitrate: s.availableOutgoingBitrate,
          currentRoundTripTime: s.currentRoundTripTime});
        if (s.type === 'remote-inbound-rtp' && s.kind === 'video') Object.assign(out, {fractionLost: s.fractionLost});
      });
      console.log('STATS ' + JSON.stringify(out));
    }, 1000);
  } catch (e) { console.log('WHIP_ERROR ' + e); }
})();
</script>"""


def _step_the_uplink(netlab, box, wide_seconds):
    """`wide_seconds` more on the wide uplink, NARROW_SECONDS narrow, RECOVERY_SECONDS wide again.
    Returns when it narrowed and when it widened (wall clock)."""
    time.sleep(wide_seconds)
    narrowed = time.time()
    netlab.shape(box, "up", rate_bps=NARROW, queue_ms=100)
    time.sleep(NARROW_SECONDS)
    widened = time.time()
    netlab.shape(box, "up", rate_bps=WIDE, queue_ms=100)
    time.sleep(RECOVERY_SECONDS)
    return narrowed, widened


def _run(netlab, tmp_path, name, transport_cc):
    """One stepped run. Returns per-second rows (seconds from the step down, bits sent per second,
    Chromium's estimate or 0 when it gave none, frame width, round trip), the page's view of the
    answer, the feedback packets the server sent, how long the link was narrow, and the drops at
    the uplink's queue."""
    workdir = tmp_path / name
    workdir.mkdir()
    srv = netlab.public_host(f"srv{name[0]}")
    server = LabServer(netlab, srv, workdir).start()
    box = netlab.public_host(f"pub{name[0]}", shaped=True)
    netlab.shape(box, "up", rate_bps=WIDE, queue_ms=100)
    for host in (srv, box):
        netlab.set_hosts(host, {"stage.test": [srv.v4]})
    arn = server.create_stage(f"uplink-{name}")
    html = (PUBLISHER_PAGE.replace("WHIP_URL", f"http://stage.test:{HTTP_PORT}/whip")
            .replace("WHIP_TOKEN", server.token(arn, "chromium", "PUBLISH")["token"])
            .replace("STRIP_TCC", "false" if transport_cc else "true"))
    browser = LabChromium(netlab, box, workdir, html, seconds=WIDE_SECONDS + NARROW_SECONDS + RECOVERY_SECONDS + 60)
    try:
        deadline = time.monotonic() + 45
        while time.monotonic() < deadline and not any(s.get("framesSent") for s in browser.objects()):
            time.sleep(0.2)
        assert any(s.get("framesSent") for s in browser.objects()), browser.log_path.read_text(errors="replace")[-3000:]
        narrowed, widened = _step_the_uplink(netlab, box, WIDE_SECONDS)
        feedback = _metric(server, "proscenium_media_transport_feedback_sent_total")
    finally:
        browser.close()
        server.stop()
    samples = browser.objects()
    answer = browser.objects("ANSWER")[0]
    stats = netlab.link_stats(box)["up"]
    rows = []
    for a, b in zip(samples, samples[1:]):
        if "bytesSent" in a and "bytesSent" in b:
            rows.append((b["t"] - narrowed, 8 * (b["bytesSent"] - a["bytesSent"]) / max(b["t"] - a["t"], 0.1),
                         b.get("availableOutgoingBitrate", 0), b.get("frameWidth"), b.get("currentRoundTripTime")))
    print(f"\n[{name}] answer {answer}; server sent {feedback:.0f} transport-cc feedback packets; uplink queue drops "
          f"{stats['dropped_queue'] + stats['dropped_overflow']}")
    print(f"[{name}] timeline (s from the drop: sent kbps / Chromium's estimate kbps / width / RTT ms): " + " ".join(
        f"{t:+.0f}:{sent / 1000:.0f}/{estimate / 1000:.0f}/{width}/{(rtt or 0) * 1000:.0f}" for t, sent, estimate, width, rtt in rows))
    return rows, answer, feedback, widened - narrowed, stats['dropped_queue'] + stats['dropped_overflow']


def test_chromium_whip_publisher_follows_its_uplink_with_our_transport_cc(netlab, tmp_path):
    rows, answer, feedback, narrow_for, dropped = _run(netlab, tmp_path, "transport-cc", transport_cc=True)
    _, reference_answer, reference_feedback, _, reference_dropped = _run(netlab, tmp_path, "remb-only", transport_cc=False)
    assert answer["transportCC"] and not reference_answer["transportCC"], (answer, reference_answer)
    assert feedback > 10 * (WIDE_SECONDS + NARROW_SECONDS) and reference_feedback == 0, (feedback, reference_feedback)
    before = [r for r in rows if -WIDE_SECONDS + 4 <= r[0] < 0]
    narrow = [r for r in rows if 8 <= r[0] < narrow_for]
    after = [r for r in rows if r[0] >= narrow_for]
    # On the wide link Chromium sends above what the narrow one carries (its fake camera needs about
    # 700 kbps; a busy machine can cost it frames); once the link narrows, its estimate and what it
    # sends fit in it (the bar is loose: 1.5× the link, from 8 s after the step), so the link's
    # queue hardly overflows.
    assert max(r[1] for r in before) > 1.5 * NARROW, before
    assert narrow and all(0 < r[2] <= 1.5 * NARROW for r in narrow) and max(r[1] for r in narrow) <= 1.5 * NARROW, narrow
    assert dropped < 200, f"{dropped} packets dropped at the narrowed uplink's queue"
    # After the link widens again, its estimate climbs back over twice the narrow rate.
    assert any(r[2] > 2 * NARROW for r in after), after
    # Without transport-cc the loss-based REMB is the brake: a constant 6 Mbps REMB let Chromium
    # resend what the full queue dropped at up to 5.6 Mbps, over 3,200 drops a run; cut from
    # the loss, 280–637 in four runs.
    assert reference_dropped < 1500, f"{reference_dropped} packets dropped at the narrowed uplink's queue with REMB alone"


def test_a_cli_host_on_a_narrowing_uplink_follows_it_by_its_own_transport_cc_and_its_guest_keeps_watching(netlab, tmp_path):
    """The SDK negotiates transport-cc on its publish connection: the server reports when each
    packet arrived and tells it only the ceiling (a REMB of 6 Mbps, as it tells Chromium). On a
    narrowing uplink the host's own delay-based detector (`UplinkCongestion`) and its loss-based
    controller bring its encoders' target (`targetBitrate`) down to what gets through, and its
    guest keeps decoding."""
    srv = netlab.public_host("srv")
    server = LabServer(netlab, srv, tmp_path).start()
    host_box, guest_box = netlab.public_host("host", shaped=True), netlab.public_host("guest")
    netlab.shape(host_box, "up", rate_bps=WIDE, queue_ms=100)
    for box in (srv, host_box, guest_box):
        netlab.set_hosts(box, {"stage.test": [srv.v4]})
    arn = server.create_stage("uplink-cli")
    host = Participant(netlab, host_box, tmp_path, "host", server.token(arn, "host", "PUBLISH")["token"],
                       "--camera", "test", "--mic", "tone", "--size", "1280x720", "--fps", "20", "--simulcast", "on",
                       "--status-interval", "1")
    guest = Participant(netlab, guest_box, tmp_path, "guest", server.token(arn, "guest", "SUBSCRIBE")["token"],
                        "--strategy", "viewer", "--camera", "none", "--mic", "none", "--status-interval", "1")
    try:
        guest.wait_for(lambda p: any(n.startswith("didAddStreams") for n in _callbacks(p, "host")), 45, "the host's streams")
        narrowed, widened = _step_the_uplink(netlab, host_box, 12)
        feedback = _metric(server, "proscenium_media_transport_feedback_sent_total")
    finally:
        guest.leave()
        host.leave()
        server.stop()
    link = netlab.link_stats(host_box)["up"]
    estimates = [(t - narrowed, e) for t, e in counter_samples(host, "host", "uplinkEstimate")]
    targets = [(t - narrowed, v) for t, v in counter_samples(host, "host", "targetBitrate")]
    decoded = [(t - narrowed, n) for t, n in counter_samples(guest, "host", "framesDecoded")]
    narrow_for = widened - narrowed
    fitted = next((t for t, v in targets if 0 <= t < narrow_for and v <= NARROW), None)
    print(f"server sent {feedback:.0f} transport-cc feedback packets; uplink queue drops "
          f"{link['dropped_queue'] + link['dropped_overflow']}; the host's target first at or under {NARROW // 1000} kbps "
          f"{fitted if fitted is None else f'{fitted:.1f}'} s after the drop")
    print("host's target (s from the drop: kbps): " + " ".join(f"{t:+.0f}:{v // 1000}" for t, v in targets))
    print("server's REMB to the host (s from the drop: kbps): " + " ".join(f"{t:+.0f}:{e // 1000}" for t, e in estimates))
    print("guest's decoded frames (s from the drop: count): " + " ".join(f"{t:+.0f}:{n}" for t, n in decoded))
    assert feedback > 10 * narrow_for, "the server reported arrivals over transport-cc"
    assert estimates and all(e == 6_000_000 for _, e in estimates), "with transport-cc the server's REMB is the ceiling"
    assert fitted is not None, "the host's target did not come down to what the narrow uplink carries"
    # The guest keeps watching on the narrow uplink: at least half the host's frame rate over its
    # second half (repair and the lowest layer), and more than 30 frames in every 5 s.
    frames = lambda a, b: max((n for t, n in decoded if t <= b), default=0) - max((n for t, n in decoded if t <= a), default=0)
    assert frames(narrow_for / 2, narrow_for) >= 0.5 * 20 * narrow_for / 2, decoded
    assert all(frames(s, s + 5) > 30 for s in range(0, int(narrow_for) - 5, 5)), decoded
    # After the uplink widens the target climbs back above the narrow link (the controller holds
    # 3 s after a cut, then grows by 15 % a second).
    assert targets and targets[-1][1] > 2 * NARROW, targets
