"""A bad mobile link on both legs: 5 % random loss and 40 ± 10 ms of jitter each way, for the
publishing host and for the viewer (linkem.py in netlab's namespaces). Loss is repaired by
NACKs on both legs (RTX towards the viewer), the jitter buffers absorb the jitter, and Opus
conceals what audio lost (in-band FEC, else PLC). Measured: freezes by the WebRTC statistics
rule, the stalls a viewer notices (freezes of 500 ms or more), and how much audio was concealed.

Issue 12's bar is at most one freeze over 500 ms per minute, for the SDK and for Chromium over
WHEP; these tests run JITTERY_SECONDS (30 by default; 60 for the benchmark) and allow one more,
for a shared 2-core machine. `-s` prints the figures."""
import os
import time
from types import SimpleNamespace

from offnet import HTTP_PORT, LabServer, Participant
from test_lossy_links import _metric, _participant_id
from whep_page import LabChromium, viewer_page

FPS = 20
SECONDS = int(os.environ.get("JITTERY_SECONDS", "30"))
BAD_LINK = {"delay_ms": 40, "jitter_ms": 10, "loss": 0.05}


def _long_freezes_allowed(seconds):
    """Issue 12's target (one a minute, at least one) and one more for a noisy machine."""
    return max(1, seconds // 60) + 1


def _last_status(participant, user, kind):
    statuses = [o for o in participant.objects()
                if o.get("event") == "status" and o.get("userId") == user and o.get("kind") == kind]
    return statuses[-1] if statuses else {}


def _number(status, field):
    return float(status.get(field, 0))


def _lab(netlab, tmp_path, name, viewer_name, link=None, server_args=(), suffix=""):
    """The server on the public segment, the host and the viewer each behind `link` (both ways)."""
    srv = netlab.public_host(f"srv{suffix}")
    server = LabServer(netlab, srv, tmp_path, server_args).start()
    host_box, viewer_box = netlab.public_host(f"host{suffix}", shaped=True), netlab.public_host(f"{viewer_name}{suffix}", shaped=True)
    for box in (host_box, viewer_box):
        netlab.shape(box, "both", **(link or BAD_LINK))
    for box in (srv, host_box, viewer_box):
        netlab.set_hosts(box, {"stage.test": [srv.v4]})
    return server, server.create_stage(name), host_box, viewer_box


def _host(netlab, server, arn, box, tmp_path, *capabilities, options=()):
    return Participant(netlab, box, tmp_path, "host", server.token(arn, "host", *capabilities)["token"],
                       "--camera", "test", "--mic", "tone", "--size", "640x360", "--fps", str(FPS), "--simulcast", "off",
                       "--status-interval", "1", *options)


def sdk_viewer_run(netlab, tmp_path, seconds, link=None, server_args=(), suffix=""):
    """A CLI host and a CLI guest (`--strategy viewer`), both behind `link` (BAD_LINK by default),
    for `seconds` once the guest decodes video and audio. Returns the guest, the status objects
    that open and close the window, the emulator's loss counts and the server's repair counters."""
    server, arn, host_box, guest_box = _lab(netlab, tmp_path, f"bad-link{suffix}", "guest", link, server_args, suffix)
    host = _host(netlab, server, arn, host_box, tmp_path, "PUBLISH", "SUBSCRIBE")
    guest = Participant(netlab, guest_box, tmp_path, "guest", server.token(arn, "guest", "SUBSCRIBE")["token"],
                        "--strategy", "viewer", "--camera", "none", "--mic", "none", "--status-interval", "1")
    try:
        guest.wait_for(lambda p: _number(_last_status(p, "host", "video"), "framesDecoded") > 0
                       and _number(_last_status(p, "host", "audio"), "totalSamplesReceived") > 0, 45, "decoded video and audio")
        video0, audio0, started, began = _last_status(guest, "host", "video"), _last_status(guest, "host", "audio"), \
            time.monotonic(), time.time()
        time.sleep(seconds)
        video1, audio1 = _last_status(guest, "host", "video"), _last_status(guest, "host", "audio")
        seconds = time.monotonic() - started
        repair = {name: _metric(server, f"proscenium_media_{name}_total") for name in ("nacks_sent", "nacks_answered")}
    finally:
        guest_out, host_out = guest.leave(), host.leave()
        server.stop()
    print(f"--- guest ---\n{guest_out[-600:]}\n--- host ---\n{host_out[-400:]}")
    return SimpleNamespace(guest=guest, began=began, seconds=seconds, video0=video0, video1=video1, audio0=audio0, audio1=audio1,
                           lost_up=netlab.link_stats(host_box)["up"]["dropped_loss"],
                           lost_down=netlab.link_stats(guest_box)["down"]["dropped_loss"], repair=repair)


def test_sdk_viewer_on_5_percent_loss_and_jitter_both_legs(netlab, tmp_path):
    run = sdk_viewer_run(netlab, tmp_path, SECONDS)
    video0, video1, audio0, audio1, seconds = run.video0, run.video1, run.audio0, run.audio1, run.seconds
    delta = lambda a, b, field: _number(b, field) - _number(a, field)
    decoded, freezes, long_freezes = delta(video0, video1, "framesDecoded"), delta(video0, video1, "freezeCount"), \
        delta(video0, video1, "longFreezeCount")
    frozen = delta(video0, video1, "totalFreezesDuration")
    played, concealed = delta(audio0, audio1, "totalSamplesReceived"), delta(audio0, audio1, "concealedSamples")
    print(f"5 % loss + 40 ± 10 ms jitter both legs, SDK viewer, {seconds:.0f} s: lost on the host's uplink {run.lost_up}, on "
          f"the guest's downlink {run.lost_down} (whole run); video: {decoded:.0f} frames decoded ({decoded / seconds:.1f}/s), "
          f"{freezes:.0f} freezes ({frozen:.2f} s), {long_freezes:.0f} of 500 ms or more (longest in the whole run "
          f"{video1.get('longestFreezeDuration')} s), NACKs {video1.get('nackCount')}, RTX received "
          f"{video1.get('retransmittedPacketsReceived')}, PLIs {video1.get('pliCount')}; audio: {played / seconds:.0f} "
          f"samples/s played, {concealed / max(played, 1):.1%} concealed in {delta(audio0, audio1, 'concealmentEvents'):.0f} runs")
    assert run.lost_up > 0 and run.lost_down > 0, "the emulator dropped nothing: the scenario did not happen"
    assert decoded >= 0.8 * FPS * seconds, "video did not keep up with the host's frame rate"
    assert long_freezes <= _long_freezes_allowed(SECONDS), video1
    # Audio is continuous: every 20 ms slot played (decoded or concealed), and concealment stays
    # near the loss of the two legs together (≈ 10 %), not runs of silence.
    assert played >= 0.95 * 48_000 * (seconds - 2)
    assert concealed / played <= 0.15


# What the WHEP viewer page (whep_page.py, playing the audio) runs: it samples getStats every
# 100 ms so that each freeze is seen with its own duration (`FREEZE {"count","seconds"}`), and
# logs the video and audio inbound-rtp counters once a second (`STATS {json}`).
VIEWER_STATS = """    let freezes = 0, frozen = 0, ticks = 0;
    setInterval(async () => {
      const out = {};
      (await pc.getStats()).forEach(s => {
        if (s.type === 'inbound-rtp' && s.kind === 'video') Object.assign(out, {framesDecoded: s.framesDecoded,
          framesReceived: s.framesReceived, freezeCount: s.freezeCount, totalFreezesDuration: s.totalFreezesDuration,
          packetsLost: s.packetsLost, nackCount: s.nackCount, retransmittedPacketsReceived: s.retransmittedPacketsReceived,
          pliCount: s.pliCount, keyFramesDecoded: s.keyFramesDecoded});
        if (s.type === 'inbound-rtp' && s.kind === 'audio') Object.assign(out, {totalSamplesReceived: s.totalSamplesReceived,
          concealedSamples: s.concealedSamples, silentConcealedSamples: s.silentConcealedSamples,
          concealmentEvents: s.concealmentEvents, audioPacketsLost: s.packetsLost});
      });
      if (out.freezeCount > freezes) {
        console.log('FREEZE ' + JSON.stringify({count: out.freezeCount - freezes, seconds: out.totalFreezesDuration - frozen}));
        freezes = out.freezeCount; frozen = out.totalFreezesDuration;
      }
      if (++ticks % 10 === 0) console.log('STATS ' + JSON.stringify(out));
    }, 100);
"""


def test_chromium_whep_viewer_on_5_percent_loss_and_jitter_both_legs(netlab, tmp_path):
    server, arn, host_box, browser_box = _lab(netlab, tmp_path, "jittery-chromium", "browser")
    # One temporal layer, as in test_lossy_links.py's Chromium test: with L1T3 (the SDK's
    # default) libwebrtc drops a TL2 frame that completes after a later TL0 frame was decoded,
    # and this check counts decoded frames. With an L1T3 host it decoded 476, 469, 490 and 469
    # frames where 480 are wanted (the last with ea841df's server: not the probing of 154f670).
    # With one temporal layer: 601.
    host = _host(netlab, server, arn, host_box, tmp_path, "PUBLISH", options=("--temporal-layers", "1"))
    host.wait_for(lambda p: any(e.get("event") == "participantDidJoin" and e.get("isLocal") == "true" for e in p.events()), 30, "joined")
    browser = LabChromium(netlab, browser_box, tmp_path,
                          viewer_page(f"http://stage.test:{HTTP_PORT}/whep/{_participant_id(host)}",
                                      server.token(arn, "viewer", "SUBSCRIBE")["token"], VIEWER_STATS, play_audio=True),
                          seconds=SECONDS + 60)
    try:
        browser.wait_decoding(also=lambda s: s.get("totalSamplesReceived"))
        first, freezes_before, started = browser.objects()[-1], len(browser.objects("FREEZE")), time.monotonic()
        time.sleep(SECONDS)
        last, freeze_events = browser.objects()[-1], browser.objects("FREEZE")[freezes_before:]
        seconds = time.monotonic() - started
    finally:
        host.leave()
        browser.close()
    lost_up, lost_down = netlab.link_stats(host_box)["up"]["dropped_loss"], netlab.link_stats(browser_box)["down"]["dropped_loss"]
    delta = lambda field: last.get(field, 0) - first.get(field, 0)
    # A sample that saw two freezes at once gives their sum: counted as long if the sum is.
    long_freezes = sum(e["count"] for e in freeze_events if e["seconds"] >= 0.5)
    longest = max((e["seconds"] / e["count"] for e in freeze_events), default=0)
    played, concealed = delta("totalSamplesReceived"), delta("concealedSamples")
    print(f"5 % loss + 40 ± 10 ms jitter both legs, Chromium over WHEP, {seconds:.0f} s: lost on the host's uplink "
          f"{lost_up}, on Chromium's downlink {lost_down} (whole run); video: {delta('framesDecoded')} frames decoded "
          f"of {delta('framesReceived')} received, {delta('freezeCount')} freezes ({delta('totalFreezesDuration'):.2f} s), "
          f"{long_freezes} of 500 ms or more (longest {longest:.2f} s), NACKs {delta('nackCount')}, RTX received "
          f"{delta('retransmittedPacketsReceived')}, PLIs {delta('pliCount')}; audio: {played / seconds:.0f} samples/s, "
          f"{concealed / max(played, 1):.1%} concealed ({delta('silentConcealedSamples')} silent) in "
          f"{delta('concealmentEvents')} runs")
    assert lost_up > 0 and lost_down > 0, "the emulator dropped nothing: the scenario did not happen"
    assert delta("framesDecoded") >= 0.8 * FPS * seconds, last
    assert long_freezes <= _long_freezes_allowed(SECONDS), freeze_events
    assert delta("nackCount") > 0 and delta("retransmittedPacketsReceived") > 0, last
    assert played >= 0.9 * 48_000 * (seconds - 2), last
    assert concealed / played <= 0.15, last
