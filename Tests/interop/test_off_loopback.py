"""The SDK and CLI off the loopback: a server on the lab's public segment, hosts and guests in
NATed homes, behind a router that drops UDP (ICE-TCP), behind one that also closes the server's
TCP port (TURN/TCP through coturn), IPv6-only, and a guest whose address changes mid-stream.
Every participant is a real `stage join` process; recordings are counted with ffprobe."""
import time

import pytest

from offnet import LabServer, Participant, delivery, recorded_frames

FPS = 20
RECORD_SECONDS = 6


def _names(participant):
    """The guest's renderer callbacks about the host, in order, with what they carried."""
    seen = []
    for event in participant.events():
        kind = event["event"]
        if kind == "didChangeConnectionState":
            seen.append(f"connection {event['state']}")
        elif event.get("userId") == "host":
            detail = event.get("state") or event.get("streams") or ""
            seen.append(f"{kind} {detail}".strip())
    return seen


# What a viewer sees of a publishing host on loopback (IntegrationTests/ModeratedStageTests
# asserts the same order): join, published, attemptingSubscribe → subscribed, the two streams.
EXPECTED_GUEST = [
    "connection connecting", "connection connected",
    "participantDidJoin", "didChangePublishState published",
    "didChangeSubscribeState attemptingSubscribe", "didChangeSubscribeState subscribed",
    "didAddStreams camera-test[video] mic-tone[audio]",
]


def _host_and_guest(lab, server, host_ns, guest_ns, workdir, guest_args=(), host_args=()):
    arn = server.create_stage("offnet")
    host_token = server.token(arn, "host", "PUBLISH", "SUBSCRIBE")["token"]
    guest_token = server.token(arn, "guest", "SUBSCRIBE")["token"]
    host = Participant(lab, host_ns, workdir, "host", host_token, "--camera", "test", "--mic", "tone", "--size", "640x360",
                       "--fps", str(FPS), "--simulcast", "off", "--status-interval", "1", *host_args)
    guest = Participant(lab, guest_ns, workdir, "guest", guest_token, "--strategy", "viewer", "--camera", "none", "--mic", "none",
                        "--record", str(workdir / "rec"), "--status-interval", "1", *guest_args)
    return host, guest


@pytest.fixture
def lab_server(netlab, tmp_path):
    """The server with its defaults: it advertises its interface addresses (IPv4 and IPv6), UDP 7880 and ICE-TCP 7881."""
    srv = netlab.public_host("srv")
    server = LabServer(netlab, srv, tmp_path).start()
    yield srv, server
    server.stop()


def test_nat_host_publishes_and_nat_guest_records(netlab, lab_server, tmp_path):
    srv, server = lab_server
    home1, home2 = netlab.nat_home("home1"), netlab.nat_home("home2")
    for home in (home1, home2, srv):
        netlab.set_hosts(home, {"stage.test": [srv.v4]})
    host, guest = _host_and_guest(netlab, server, home1, home2, tmp_path)
    try:
        guest.wait_for(lambda p: any("didAddStreams" in n for n in _names(p)), 20, "the host's streams")
        time.sleep(RECORD_SECONDS)
        guest.wait_for(lambda p: p.paths(), 5, "a status object with the path")
    finally:
        guest_out, host_out = guest.leave(), host.leave()
    print(f"--- guest ---\n{guest_out[-1500:]}\n--- host ---\n{host_out[-800:]}\n--- server ---\n{server.log_tail(1500)}")
    assert _names(guest)[:len(EXPECTED_GUEST)] == EXPECTED_GUEST, _names(guest)
    assert guest.paths()[-1].startswith("host udp 192.168.2.2:"), guest.paths()
    assert guest.paths()[-1].endswith(f"host udp {srv.v4}:7880"), guest.paths()
    assert host.paths()[-1].startswith("host udp 192.168.1.2:"), host.paths()
    _assert_delivered("NAT → NAT", host, guest, tmp_path)


def test_udp_blocked_guest_receives_over_ice_tcp(netlab, lab_server, tmp_path):
    srv, server = lab_server
    home1 = netlab.nat_home("home1")
    walled = netlab.nat_home("walled", udp_blocked=True)
    for host in (home1, walled, srv):
        netlab.set_hosts(host, {"stage.test": [srv.v4]})
    host, guest = _host_and_guest(netlab, server, home1, walled, tmp_path)
    try:
        _wait_recording(guest)
    finally:
        guest_out, host_out = guest.leave(), host.leave()
    print(f"--- guest ---\n{guest_out[-1200:]}")
    path = guest.paths()[-1]
    assert path.startswith(f"host tcp {walled.v4}:") and path.endswith(f"host tcp {srv.v4}:7881"), guest.paths()
    assert host.paths()[-1].endswith(f"host udp {srv.v4}:7880"), host.paths()
    _assert_delivered(f"over ICE-TCP ({path})", host, guest, tmp_path)


def test_ipv6_only_guest(netlab, lab_server, tmp_path):
    srv, server = lab_server
    home1, v6 = netlab.nat_home("home1"), netlab.v6_only("v6guest")
    for host in (home1, srv):
        netlab.set_hosts(host, {"stage.test": [srv.v4]})
    netlab.set_hosts(v6, {"stage.test": [srv.v6]})
    host, guest = _host_and_guest(netlab, server, home1, v6, tmp_path)
    try:
        _wait_recording(guest)
    finally:
        guest_out, host_out = guest.leave(), host.leave()
    print(f"--- guest ---\n{guest_out[-1200:]}")
    path = guest.paths()[-1]
    assert path == f"host udp [{v6.v6}]:{path.split(']:')[1].split(' ')[0]} → host udp [{srv.v6}]:7880", guest.paths()
    _assert_delivered(f"IPv6-only guest ({path})", host, guest, tmp_path)


def _assert_delivered(what, host, guest, workdir):
    """≥ 95 % of the frames the host encoded while the guest received were decoded, and the
    recording (ffprobe) holds about as many frames as the guest decoded."""
    decoded, encoded = delivery(host, guest)
    frames = recorded_frames(_recording(workdir))
    total = max(s[1] for s in __import__("offnet")._counter_samples(guest, "host", "framesDecoded"))
    print(f"{what}: the guest decoded {decoded:.0f} of {encoded:.0f} frames the host encoded meanwhile ({decoded / encoded:.1%}); "
          f"recording: {frames} frames (ffprobe), {total} decoded in all")
    assert encoded >= FPS * 2.5 and decoded / encoded >= 0.95
    assert frames >= 0.95 * total


def _candidates(participant):
    return next((o["candidates"] for o in reversed(participant.objects()) if o.get("event") == "status" and "candidates" in o), "")


def _recording(workdir):
    videos = sorted((workdir / "rec").glob("*.ivf"))
    assert videos, "nothing recorded"
    return videos[0]


def _wait_recording(guest, seconds=RECORD_SECONDS):
    guest.wait_for(lambda p: any(n.startswith("didAddStreams") for n in _names(p)), 20, "the host's streams")
    time.sleep(seconds)
    guest.wait_for(lambda p: p.paths(), 5, "a status object with the path")


def test_udp_and_server_tcp_blocked_guest_receives_through_turn_tcp(netlab, lab_server, tmp_path):
    srv, server = lab_server
    from offnet import LabTURN
    turn = LabTURN(netlab, netlab.public_host("turn", v6=False), tmp_path).start()
    home1 = netlab.nat_home("home1")
    walled = netlab.nat_home("walled", udp_blocked=True, blocked_tcp_ports=(7880, 7881, 8443))
    for host in (home1, walled, srv):
        netlab.set_hosts(host, {"stage.test": [srv.v4]})
    host, guest = _host_and_guest(netlab, server, home1, walled, tmp_path, guest_args=turn.args(turn.url_tcp),
                                  host_args=["--ice-server", f"stun:{turn.host.v4}:3478"])
    try:
        _wait_recording(guest)
    finally:
        guest_out, host_out = guest.leave(), host.leave()
        turn.stop()
    print(f"--- guest ---\n{guest_out[-1200:]}\n--- host ---\n{host_out[-400:]}")
    path = guest.paths()[-1]
    assert path.startswith(f"relay udp {turn.host.v4}:") and "via TURN/tcp" in path, guest.paths()
    assert path.endswith(f"host udp {srv.v4}:7880"), path
    _assert_delivered(f"through TURN/TCP ({path})", host, guest, tmp_path)
    # Gathering: the host learned its NATed address from the STUN server (a server-reflexive
    # candidate), the guest its relayed one from the TURN server.
    host_candidates, guest_candidates = _candidates(host), _candidates(guest)
    print(f"host gathered: {host_candidates}\nguest gathered: {guest_candidates}")
    assert f"srflx udp {home1.router_public_v4}:" in host_candidates
    assert f"relay udp {turn.host.v4}:" in guest_candidates and "via TURN/tcp" in guest_candidates


def test_guest_address_replaced_mid_stream_recovers_within_3_s_without_rejoin(netlab, lab_server, tmp_path):
    srv, server = lab_server
    home1, home2 = netlab.nat_home("home1"), netlab.nat_home("home2")
    for host in (home1, home2, srv):
        netlab.set_hosts(host, {"stage.test": [srv.v4]})
    arn = server.create_stage("move")
    host = Participant(netlab, home1, tmp_path, "host", server.token(arn, "host")["token"], "--camera", "test", "--mic", "tone",
                       "--size", "640x360", "--fps", str(FPS), "--simulcast", "off", "--status-interval", "1", "--record", str(tmp_path / "host-rec"))
    guest = Participant(netlab, home2, tmp_path, "guest", server.token(arn, "guest")["token"], "--camera", "test", "--mic", "none",
                        "--size", "320x180", "--fps", str(FPS), "--simulcast", "off", "--record", str(tmp_path / "rec"), "--status-interval", "1")
    try:
        _wait_recording(guest, 3)
        before = guest.paths()[-1]
        old = home2.v4
        moved_at = time.monotonic()
        new = netlab.replace_address(home2)
        guest.wait_for(lambda p: any(path.startswith(f"host udp {new}:") for path in p.paths()), 10, f"a path from {new}")
        print(f"path moved from {old} to {new}: {before} → {guest.paths()[-1]} (seen {time.monotonic() - moved_at:.1f} s after the change)")
        time.sleep(4)
    finally:
        guest_out, host_out = guest.leave(), host.leave()
    print(f"--- guest ---\n{guest_out[-1500:]}\n--- host ---\n{host_out[-1500:]}")
    gap, stall = _largest_gap(_recording(tmp_path)), _longest_decode_stall(guest, "host")
    print(f"largest gap in the guest's recording: {gap:.2f} s of media time; longest time without a new decoded frame: {stall:.1f} s")
    assert gap < 3.0 and stall < 3.0
    host_saw = [e["event"] for e in host.events() if e.get("userId") == "guest"]
    assert host_saw.count("participantDidJoin") == 1 and "participantDidLeave" not in host_saw[:-1], host_saw
    reconnects = [e for e in guest.events() if e["event"] == "didChangeConnectionState"]
    assert [e["state"] for e in reconnects][:2] == ["connecting", "connected"] and len(reconnects) <= 3, reconnects


def _longest_decode_stall(participant, user):
    """The longest wall-clock time between status objects (one a second) whose decoded-frame
    count of `user`'s video went up: how long no new frame arrived, at 1 s resolution."""
    import datetime
    import re
    increases, last = [], None
    for status in participant.objects():
        if status.get("event") != "status" or status.get("userId") != user or status.get("kind") != "video":
            continue
        match = re.search(r"(\d+) frames", status["summary"])
        if not match:
            continue
        frames, at = int(match.group(1)), datetime.datetime.fromisoformat(status["time"].replace("Z", "+00:00")).timestamp()
        if last is None or frames > last:
            increases.append(at)
        last = frames
    assert len(increases) > 3, "too few status objects with decoded frames"
    return max(b - a for a, b in zip(increases, increases[1:]))


def _largest_gap(ivf):
    import json
    import subprocess
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts", "-of", "json", str(ivf)],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    pts = sorted(int(p["pts"]) for p in json.loads(out)["packets"])
    return max((b - a) / 90000 for a, b in zip(pts, pts[1:]))


CHROMIUM_PAGE = """<!doctype html><meta charset=utf-8><script>
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
    pc.onconnectionstatechange = () => console.log('PC_STATE ' + pc.connectionState);
    setInterval(async () => {
      const stats = await pc.getStats();
      stats.forEach(s => { if (s.type === 'candidate-pair' && s.nominated && s.state === 'succeeded') {
        const local = stats.get(s.localCandidateId), remote = stats.get(s.remoteCandidateId);
        console.log('PAIR ' + local.candidateType + ' ' + local.protocol + ' ' + local.address + ' -> ' + remote.candidateType + ' ' + remote.protocol + ' ' + remote.address + ':' + remote.port);
      }});
    }, 1000);
  } catch (e) { console.log('WHIP_ERROR ' + e); }
})();
</script>"""


@pytest.mark.parametrize("udp_blocked", [False, True], ids=["udp", "udp-blocked-ice-tcp"])
def test_chromium_in_a_nat_home_publishes_over_whip_and_an_sdk_guest_watches(netlab, lab_server, tmp_path, udp_blocked):
    import subprocess
    from test_media_chromium_simulcast import CHROMIUM_FLAGS
    srv, server = lab_server
    browser_home, guest_home = netlab.nat_home("browser", udp_blocked=udp_blocked), netlab.nat_home("home2")
    for host in (browser_home, guest_home, srv):
        netlab.set_hosts(host, {"stage.test": [srv.v4]})
    arn = server.create_stage("chromium")
    publisher = server.token(arn, "chromium", "PUBLISH")
    guest_token = server.token(arn, "guest", "SUBSCRIBE")["token"]
    page = tmp_path / "publish.html"
    page.write_text(CHROMIUM_PAGE % {"whip": "http://stage.test:8080/whip", "token": publisher["token"]})
    browser_log = open(tmp_path / "chromium.log", "wb")
    browser = netlab.popen(browser_home, ["timeout", "60", "chromium", *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}",
                                          page.as_uri()], stdout=browser_log, stderr=subprocess.STDOUT)
    guest = Participant(netlab, guest_home, tmp_path, "guest", guest_token, "--strategy", "viewer", "--camera", "none", "--mic", "none",
                        "--record", str(tmp_path / "rec"), "--status-interval", "1")
    try:
        guest.wait_for(lambda p: any(n.startswith("didAddStreams") for n in _names_of(p, "chromium")), 30, "the browser's streams")
        time.sleep(RECORD_SECONDS)
    finally:
        guest_out = guest.leave()
        browser.terminate()
        browser.wait()
        browser_log.close()
    console = (tmp_path / "chromium.log").read_text(errors="replace")
    pairs = [line.split("PAIR ", 1)[1].split('"')[0] for line in console.splitlines() if "PAIR " in line]
    print(f"--- guest ---\n{guest_out[-1000:]}\n--- chromium pairs ---\n{pairs[-2:]}")
    assert "WHIP_STATUS 201" in console, console[-3000:]
    if udp_blocked:
        # Browsers use the server's ICE-TCP passive candidate when UDP does not get through.
        assert pairs and pairs[-1].endswith(f"-> host tcp {srv.v4}:7881"), pairs[-3:] or console[-3000:]
    else:
        # The browser learns its NATed address from the server's answers to its checks: a prflx candidate.
        assert pairs and pairs[-1] == f"prflx udp {browser_home.router_public_v4} -> host udp {srv.v4}:7880", pairs[-3:] or console[-3000:]
    frames = recorded_frames(_recording(tmp_path))
    print(f"chromium over WHIP through NAT → CLI guest: {frames} frames recorded in {RECORD_SECONDS} s")
    assert frames >= 10 * RECORD_SECONDS


def _names_of(participant, user):
    return [e["event"] for e in participant.events() if e.get("userId") == user]
