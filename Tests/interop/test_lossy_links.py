"""Loss repair on bad links: a server on the lab's public segment, a publishing host and a
viewing guest each behind a link emulator (linkem.py: delay, loss) — real `stage join`
processes, real NACKs (RFC 4585) and retransmissions on both legs: the server asks the host
again for what it lost on the way in, and resends to the guest on RTX (RFC 4588) what the
guest lost on the way out."""
import re
import subprocess
import time

from offnet import HTTP_PORT, LabServer, Participant, counter_samples, delivery
from test_media_chromium_simulcast import CHROMIUM_FLAGS
from test_off_loopback import _callbacks
from whep_page import LabChromium, console_objects, viewer_page

FPS = 20
RECORD_SECONDS = 15


def _metrics_text(server):
    return server.lab.run(server.host, ["curl", "-sf", "-m", "5", f"http://127.0.0.1:{HTTP_PORT}/metrics"]).stdout


def _metric(server, name):
    text = _metrics_text(server)
    match = re.search(rf"^{re.escape(name)} ([0-9.e+]+)$", text, re.M)
    return float(match.group(1)) if match else 0.0


def _drops(server):
    """The server's nonzero `proscenium_media_dropped_total` counters by reason: where packets
    that reached it went, if a run loses more than the emulator dropped."""
    text = _metrics_text(server)
    return {reason: float(value) for reason, value in
            re.findall(r'^proscenium_media_dropped_total\{reason="([a-z_]+)"\} ([0-9.e+]+)$', text, re.M) if float(value)}


def _last(participant, user, field):
    samples = counter_samples(participant, user, field)
    return samples[-1][1] if samples else 0


def test_one_percent_loss_at_200_ms_rtt_is_repaired_on_both_legs(netlab, tmp_path):
    srv = netlab.public_host("srv")
    server = LabServer(netlab, srv, tmp_path).start()
    host_box, guest_box = netlab.public_host("host", shaped=True), netlab.public_host("guest", shaped=True)
    for box in (host_box, guest_box):
        netlab.shape(box, "both", delay_ms=100, loss=0.01)   # 200 ms round trip to the server, 1 % lost each way
    for box in (srv, host_box, guest_box):
        netlab.set_hosts(box, {"stage.test": [srv.v4]})
    arn = server.create_stage("lossy")
    host = Participant(netlab, host_box, tmp_path, "host", server.token(arn, "host", "PUBLISH", "SUBSCRIBE")["token"],
                       "--camera", "test", "--mic", "tone", "--size", "640x360", "--fps", str(FPS), "--simulcast", "off",
                       "--status-interval", "1")
    guest = Participant(netlab, guest_box, tmp_path, "guest", server.token(arn, "guest", "SUBSCRIBE")["token"],
                        "--strategy", "viewer", "--camera", "none", "--mic", "none", "--status-interval", "1")
    try:
        guest.wait_for(lambda p: any(n.startswith("didAddStreams") for n in _callbacks(p, "host")), 45, "the host's streams")
        time.sleep(RECORD_SECONDS)
        guest.wait_for(lambda p: _last(p, "host", "framesDecoded") > 0, 5, "decoded frames")
    finally:
        guest_out, host_out = guest.leave(), host.leave()
    print(f"--- guest ---\n{guest_out[-800:]}\n--- host ---\n{host_out[-500:]}")
    lost_up, lost_down = netlab.link_stats(host_box)["up"]["dropped_loss"], netlab.link_stats(guest_box)["down"]["dropped_loss"]
    decoded, encoded = delivery(host, guest)
    resent_by_host = _last(host, "host", "retransmittedPacketsSent")
    rtx_at_guest = _last(guest, "host", "retransmittedPacketsReceived")
    nacks_to_host, rtx_answered = _metric(server, "proscenium_media_nacks_sent_total"), _metric(server, "proscenium_media_nacks_answered_total")
    print(f"200 ms RTT, 1 % loss: the guest decoded {decoded:.0f} of {encoded:.0f} frames ({decoded / encoded:.1%}); "
          f"lost on the host's uplink {lost_up}, on the guest's downlink {lost_down}; server NACKed {nacks_to_host:.0f} "
          f"sequence numbers to the host, which resent {resent_by_host}; server answered {rtx_answered:.0f} of the guest's "
          f"NACKs, {rtx_at_guest} RTX packets reached the guest")
    assert lost_up > 0 and lost_down > 0, "the emulator dropped nothing: the scenario did not happen"
    assert nacks_to_host > 0 and resent_by_host > 0, "upstream loss was not asked for again"
    assert rtx_answered > 0 and rtx_at_guest > 0, "downstream loss was not resent on RTX"
    # The benchmark's target is 99 %; the margin is for a shared 2-core machine.
    assert encoded >= FPS * 5 and decoded / encoded >= 0.97


# What the WHEP viewer page (whep_page.py) runs: logs its video inbound-rtp counters once a
# second as `STATS {json}` (the WebRTC stats definitions).
VIEWER_STATS = """    setInterval(async () => {
      (await pc.getStats()).forEach(s => { if (s.type === 'inbound-rtp' && s.kind === 'video') {
        console.log('STATS ' + JSON.stringify({framesDecoded: s.framesDecoded, framesReceived: s.framesReceived,
          framesDropped: s.framesDropped, freezeCount: s.freezeCount, totalFreezesDuration: s.totalFreezesDuration,
          packetsLost: s.packetsLost, nackCount: s.nackCount, retransmittedPacketsReceived: s.retransmittedPacketsReceived,
          keyFramesDecoded: s.keyFramesDecoded, pliCount: s.pliCount}));
      }});
    }, 1000);
"""


def _participant_id(participant):
    return next(e["participantId"] for e in participant.events() if e.get("event") == "participantDidJoin" and e.get("isLocal") == "true")


def test_chromium_whep_viewer_gets_rtx_at_1_percent_loss_and_200_ms_rtt(netlab, tmp_path):
    srv = netlab.public_host("srv")
    server = LabServer(netlab, srv, tmp_path).start()
    host_box, browser_box = netlab.public_host("host"), netlab.public_host("browser", shaped=True)
    netlab.shape(browser_box, "both", delay_ms=100, loss=0.01)
    for box in (srv, host_box, browser_box):
        netlab.set_hosts(box, {"stage.test": [srv.v4]})
    arn = server.create_stage("lossy-chromium")
    host = Participant(netlab, host_box, tmp_path, "host", server.token(arn, "host", "PUBLISH")["token"],
                       "--camera", "test", "--mic", "tone", "--size", "640x360", "--fps", str(FPS), "--simulcast", "off",
                       # No temporal layers: every frame then references the one before, so a frame
                       # is decoded only if every repair arrived. With L1T3 (the SDK's default)
                       # Chromium decodes a TL0 frame while an earlier TL2 frame still waits for its
                       # repair, and drops that one when it completes late: 287 of 296 received
                       # frames decoded in one run, its framesDropped 9 (289 of 292 and 3 in
                       # another, 298 of 298 in a third; without temporal layers 300 of 295).
                       "--temporal-layers", "1", "--status-interval", "1")
    host.wait_for(lambda p: any(e.get("event") == "participantDidJoin" and e.get("isLocal") == "true" for e in p.events()), 30, "joined")
    browser = LabChromium(netlab, browser_box, tmp_path, viewer_page(f"http://stage.test:{HTTP_PORT}/whep/{_participant_id(host)}",
                                                                     server.token(arn, "viewer", "SUBSCRIBE")["token"], VIEWER_STATS))
    try:
        browser.wait_decoding()
        first = browser.objects()[-1]
        time.sleep(RECORD_SECONDS)
        last = browser.objects()[-1]
    finally:
        host.leave()
        browser.close()
    lost_down = netlab.link_stats(browser_box)["down"]["dropped_loss"]
    repairs = {name: _metric(server, metric) for name, metric in (
        ("asked", "proscenium_media_nacks_received_total"), ("answered", "proscenium_media_nacks_answered_total"),
        ("not cached", 'proscenium_media_dropped_total{reason="nack_not_cached"}'),
        ("over budget", 'proscenium_media_dropped_total{reason="repair_over_budget"}'))}
    # Chromium leaves the counter out until its first RTX packet.
    rtx_received = last.get("retransmittedPacketsReceived", 0)
    decoded = last["framesDecoded"] - first["framesDecoded"]
    received = last["framesReceived"] - first["framesReceived"]
    freezes = last["freezeCount"] - first["freezeCount"]
    frozen = last["totalFreezesDuration"] - first["totalFreezesDuration"]
    print(f"Chromium over WHEP, 200 ms RTT, 1 % loss, {RECORD_SECONDS} s: lost on its downlink {lost_down} in all; "
          f"decoded {decoded} of {received} frames received; NACKs {last['nackCount']}, RTX packets received "
          f"{rtx_received}, packets lost {last['packetsLost']}, freezes {freezes} "
          f"({frozen:.2f} s), PLIs {last['pliCount']}; the server's NACKed sequence numbers {repairs}")
    assert lost_down > 0, "the emulator dropped nothing: the scenario did not happen"
    assert last["nackCount"] > 0 and rtx_received > 0, (last, repairs)
    assert received >= FPS * RECORD_SECONDS * 0.8 and decoded >= 0.97 * received
    # A repaired loss costs a round trip (200 ms): at 20 fps that is a freeze by the WebRTC rule
    # (a frame later than max(3 frame intervals, 150 ms)); a lost repair would cost a keyframe
    # round trip and more. So freezes may happen, but short ones.
    assert freezes == 0 or frozen / freezes < 0.5, last


# A WHIP publisher page (Chromium's fake camera, one layer): logs its video outbound-rtp and
# remote-inbound-rtp counters once a second as `STATS {json}` — the latter come from the
# server's receiver reports (RFC 3550 §6.4.2), their round trip from LSR/DLSR.
PUBLISHER_PAGE = """<!doctype html><meta charset=utf-8><script>
(async () => {
  try {
    const stream = await navigator.mediaDevices.getUserMedia({video: {width: 640, height: 360, frameRate: 20}, audio: true});
    const pc = new RTCPeerConnection();
    pc.addTransceiver(stream.getVideoTracks()[0], {direction: 'sendonly'});
    pc.addTransceiver(stream.getAudioTracks()[0], {direction: 'sendonly'});
    await pc.setLocalDescription();
    await new Promise(r => { if (pc.iceGatheringState === 'complete') r(); else pc.onicegatheringstatechange = () => pc.iceGatheringState === 'complete' && r(); });
    const response = await fetch('%(whip)s', {method: 'POST', body: pc.localDescription.sdp,
      headers: {'Authorization': 'Bearer %(token)s', 'Content-Type': 'application/sdp'}});
    console.log('WHIP_STATUS ' + response.status);
    await pc.setRemoteDescription({type: 'answer', sdp: await response.text()});
    setInterval(async () => {
      const out = {};
      (await pc.getStats()).forEach(s => {
        if (s.type === 'outbound-rtp' && s.kind === 'video') Object.assign(out, {framesSent: s.framesSent,
          nackCount: s.nackCount, retransmittedPacketsSent: s.retransmittedPacketsSent});
        if (s.type === 'remote-inbound-rtp' && s.kind === 'video') Object.assign(out, {roundTripTime: s.roundTripTime,
          fractionLost: s.fractionLost, packetsLost: s.packetsLost});
      });
      console.log('STATS ' + JSON.stringify(out));
    }, 1000);
  } catch (e) { console.log('WHIP_ERROR ' + e); }
})();
</script>"""


def _chromium_stats(log_path):
    return console_objects(log_path, "STATS")


def test_chromium_whip_publisher_is_asked_again_and_sees_our_receiver_reports(netlab, tmp_path):
    srv = netlab.public_host("srv")
    server = LabServer(netlab, srv, tmp_path).start()
    browser_box, guest_box = netlab.public_host("browser", shaped=True), netlab.public_host("guest")
    netlab.shape(browser_box, "both", delay_ms=100, loss=0.01)
    for box in (srv, browser_box, guest_box):
        netlab.set_hosts(box, {"stage.test": [srv.v4]})
    arn = server.create_stage("lossy-whip")
    page = tmp_path / "publish.html"
    page.write_text(PUBLISHER_PAGE % {"whip": f"http://stage.test:{HTTP_PORT}/whip",
                                      "token": server.token(arn, "chromium", "PUBLISH")["token"]})
    log_path = tmp_path / "chromium.log"
    browser_log = open(log_path, "wb")
    browser = netlab.popen(browser_box, ["timeout", "60", "chromium", *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}",
                                         page.as_uri()], stdout=browser_log, stderr=subprocess.STDOUT)
    guest = Participant(netlab, guest_box, tmp_path, "guest", server.token(arn, "guest", "SUBSCRIBE")["token"],
                        "--strategy", "viewer", "--camera", "none", "--mic", "none", "--status-interval", "1")
    try:
        # Chromium logs its first STATS a second after it connects: the guest can decode before that.
        guest.wait_for(lambda p: _last(p, "chromium", "framesDecoded") > 0 and _chromium_stats(log_path), 45,
                       "decoded frames from chromium and its first stats")
        sent_before, decoded_before = _chromium_stats(log_path)[-1].get("framesSent", 0), _last(guest, "chromium", "framesDecoded")
        # At least RECORD_SECONDS, and on until three repairs were seen (1 % of ~40 packets/s
        # can take a while to hit video), within a bound.
        started = time.monotonic()
        while time.monotonic() - started < RECORD_SECONDS or (
                _metric(server, "proscenium_media_rtx_received_total") < 3 and time.monotonic() - started < 45):
            time.sleep(1)
        last, decoded_after = _chromium_stats(log_path)[-1], _last(guest, "chromium", "framesDecoded")
    finally:
        guest.leave()
        browser.terminate()
        browser.wait()
        browser_log.close()
    seconds = time.monotonic() - started
    link = netlab.link_stats(browser_box)
    lost_up = link["up"]["dropped_loss"]
    rtx_restored, nacks_sent = _metric(server, "proscenium_media_rtx_received_total"), _metric(server, "proscenium_media_nacks_sent_total")
    sent, decoded = last["framesSent"] - sent_before, decoded_after - decoded_before
    # If the server's reports count far more lost than the emulator dropped, these say where else.
    print("link up:", {k: link["up"][k] for k in ("frames_in", "forwarded", "dropped_loss", "dropped_overflow", "send_errors")},
          "down:", {k: link["down"][k] for k in ("frames_in", "forwarded", "dropped_loss", "dropped_overflow", "send_errors")},
          "server drops:", _drops(server))
    dropped, plis = _last(guest, "chromium", "framesDropped"), _last(guest, "chromium", "pliCount")
    print(f"Chromium over WHIP, 200 ms RTT, 1 % loss, {seconds:.0f} s: lost on its uplink {lost_up}; server NACKed "
          f"{nacks_sent:.0f}, Chromium saw {last.get('nackCount')} NACKs and resent {last.get('retransmittedPacketsSent')} "
          f"packets, {rtx_restored:.0f} RTX packets restored; its receiver-report view: round trip "
          f"{last.get('roundTripTime')} s, {last.get('packetsLost')} lost; the guest decoded {decoded} frames while it "
          f"sent {sent} (both sampled once a second), dropped {dropped}, asked for {plis} keyframes")
    assert lost_up > 0, "the emulator dropped nothing: the scenario did not happen"
    assert nacks_sent > 0 and last.get("nackCount", 0) > 0 and rtx_restored > 0, last
    assert 0.15 <= last.get("roundTripTime", 0) <= 1.0, "no round trip from our receiver reports (LSR/DLSR)"
    # Sampling both ends once a second can miss up to a second of frames at each edge.
    assert sent >= 10 * RECORD_SECONDS and decoded >= sent - 2 * 20
    assert dropped == 0 and plis <= 1, "a repaired loss should cost no frame at the guest"
