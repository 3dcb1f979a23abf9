"""The SDK and CLI off the loopback: a server on the lab's public segment, hosts and guests in
NATed homes, behind a router that drops UDP (ICE-TCP), behind one that also closes the server's
ports (TURN/TCP through coturn), IPv6-only, a guest whose address changes mid-stream, and
Chromium publishing over WHIP from a NAT home. Every participant is a real `stage join` process
(or browser); recordings are counted with ffprobe."""
import subprocess
import time

import pytest

from offnet import (LabServer, LabTURN, Participant, counter_samples, delivery, largest_media_gap, longest_decode_stall,
                    recorded_frames)
from test_media_chromium_simulcast import CHROMIUM_FLAGS, publisher_page
from whep_page import console_lines

FPS = 20
RECORD_SECONDS = 6

# What a viewer sees of a publishing host on loopback (IntegrationTests/ModeratedStageTests
# asserts the same order): join, published, attemptingSubscribe → subscribed, the two streams.
EXPECTED_GUEST = [
    "connection connecting", "connection connected",
    "participantDidJoin", "didChangePublishState published",
    "didChangeSubscribeState attemptingSubscribe", "didChangeSubscribeState subscribed",
    "didAddStreams camera-test[video] mic-tone[audio]",
]


@pytest.fixture
def lab_server(netlab, tmp_path):
    """The server with its defaults: it advertises its interface addresses (IPv4 and IPv6), UDP 7880 and ICE-TCP 7881."""
    srv = netlab.public_host("srv")
    server = LabServer(netlab, srv, tmp_path).start()
    yield srv, server
    server.stop()


def _resolve_stage(lab, srv, *hosts):
    """`stage.test` → the server's IPv4 address, or its IPv6 one for hosts without IPv4."""
    for host in (srv, *hosts):
        lab.set_hosts(host, {"stage.test": [srv.v4 if host.v4 else srv.v6]})


def _callbacks(participant, about):
    """A participant's renderer callbacks about `about` (and its connection states), in order."""
    seen = []
    for event in participant.events():
        kind = event["event"]
        if kind == "didChangeConnectionState":
            seen.append(f"connection {event['state']}")
        elif event.get("userId") == about:
            detail = event.get("state") or event.get("streams") or ""
            seen.append(f"{kind} {detail}".strip())
    return seen


def _host_publishes_guest_records(lab, server, host_home, guest_home, workdir, guest_args=(), host_args=()):
    """A CLI host publishing the test camera (640×360, 20 fps, one layer) and a tone, and a CLI
    viewer recording it for RECORD_SECONDS once its streams arrived; both have left on return."""
    arn = server.create_stage("offnet")
    host = Participant(lab, host_home, workdir, "host", server.token(arn, "host", "PUBLISH", "SUBSCRIBE")["token"],
                       "--camera", "test", "--mic", "tone", "--size", "640x360", "--fps", str(FPS), "--simulcast", "off",
                       "--status-interval", "1", *host_args)
    guest = Participant(lab, guest_home, workdir, "guest", server.token(arn, "guest", "SUBSCRIBE")["token"],
                        "--strategy", "viewer", "--camera", "none", "--mic", "none", "--record", str(workdir / "rec"),
                        "--status-interval", "1", *guest_args)
    try:
        _wait_recording(guest, "host", RECORD_SECONDS)
    finally:
        guest_out, host_out = guest.leave(), host.leave()
    print(f"--- guest ---\n{guest_out[-1200:]}\n--- host ---\n{host_out[-600:]}")
    return host, guest


def _wait_recording(guest, publisher, seconds):
    guest.wait_for(lambda p: any(n.startswith("didAddStreams") for n in _callbacks(p, publisher)), 30, f"{publisher}'s streams")
    time.sleep(seconds)
    guest.wait_for(lambda p: p.paths(), 5, "a status object with the path")


def _recording(workdir):
    videos = sorted((workdir / "rec").glob("*.ivf"))
    assert videos, "nothing recorded"
    return videos[0]


def _assert_delivered(what, host, guest, workdir):
    """≥ 95 % of the frames the host encoded while the guest received were decoded, and the
    recording (ffprobe) holds about as many frames as the guest decoded."""
    decoded, encoded = delivery(host, guest)
    frames = recorded_frames(_recording(workdir))
    total = max(n for _, n in counter_samples(guest, "host", "framesDecoded"))
    print(f"{what}: the guest decoded {decoded:.0f} of {encoded:.0f} frames the host encoded meanwhile ({decoded / encoded:.1%}); "
          f"recording: {frames} frames (ffprobe), {total} decoded in all")
    assert encoded >= FPS * 2.5 and decoded / encoded >= 0.95
    assert frames >= 0.95 * total


def _gathered(participant):
    return next((o["candidates"] for o in reversed(participant.objects()) if o.get("event") == "status" and "candidates" in o), "")


def test_nat_host_publishes_and_nat_guest_records(netlab, lab_server, tmp_path):
    srv, server = lab_server
    home1, home2 = netlab.nat_home("home1"), netlab.nat_home("home2")
    _resolve_stage(netlab, srv, home1, home2)
    host, guest = _host_publishes_guest_records(netlab, server, home1, home2, tmp_path)
    assert _callbacks(guest, "host")[:len(EXPECTED_GUEST)] == EXPECTED_GUEST, _callbacks(guest, "host")
    assert guest.paths()[-1].startswith(f"host udp {home2.v4}:") and guest.paths()[-1].endswith(f"host udp {srv.v4}:7880"), guest.paths()
    assert host.paths()[-1].startswith(f"host udp {home1.v4}:"), host.paths()
    _assert_delivered("NAT → NAT", host, guest, tmp_path)


def test_udp_blocked_guest_receives_over_ice_tcp(netlab, lab_server, tmp_path):
    srv, server = lab_server
    home1, walled = netlab.nat_home("home1"), netlab.nat_home("walled", udp_blocked=True)
    _resolve_stage(netlab, srv, home1, walled)
    host, guest = _host_publishes_guest_records(netlab, server, home1, walled, tmp_path)
    path = guest.paths()[-1]
    assert path.startswith(f"host tcp {walled.v4}:") and path.endswith(f"host tcp {srv.v4}:7881"), guest.paths()
    assert host.paths()[-1].endswith(f"host udp {srv.v4}:7880"), host.paths()
    _assert_delivered(f"over ICE-TCP ({path})", host, guest, tmp_path)


def test_udp_and_server_ports_blocked_guest_receives_through_turn_tcp(netlab, lab_server, tmp_path):
    srv, server = lab_server
    turn = LabTURN(netlab, netlab.public_host("turn", v6=False), tmp_path).start()
    home1 = netlab.nat_home("home1")
    walled = netlab.nat_home("walled", udp_blocked=True, blocked_tcp_ports=(7880, 7881, 8443))
    _resolve_stage(netlab, srv, home1, walled)
    try:
        host, guest = _host_publishes_guest_records(netlab, server, home1, walled, tmp_path, guest_args=turn.args(turn.url_tcp),
                                                    host_args=["--ice-server", f"stun:{turn.host.v4}:3478"])
    finally:
        turn.stop()
    path = guest.paths()[-1]
    assert path.startswith(f"relay udp {turn.host.v4}:") and "via TURN/tcp" in path and path.endswith(f"host udp {srv.v4}:7880"), path
    _assert_delivered(f"through TURN/TCP ({path})", host, guest, tmp_path)
    # Gathering: the host learned its NATed address from the STUN server (a server-reflexive
    # candidate), the guest its relayed one from the TURN server.
    print(f"host gathered: {_gathered(host)}\nguest gathered: {_gathered(guest)}")
    assert f"srflx udp {home1.router_public_v4}:" in _gathered(host)
    assert f"relay udp {turn.host.v4}:" in _gathered(guest) and "via TURN/tcp" in _gathered(guest)


def test_ipv6_only_guest(netlab, lab_server, tmp_path):
    srv, server = lab_server
    home1, v6 = netlab.nat_home("home1"), netlab.v6_only("v6guest")
    _resolve_stage(netlab, srv, home1, v6)
    host, guest = _host_publishes_guest_records(netlab, server, home1, v6, tmp_path)
    path = guest.paths()[-1]
    assert path.startswith(f"host udp [{v6.v6}]:") and path.endswith(f"host udp [{srv.v6}]:7880"), guest.paths()
    _assert_delivered(f"IPv6-only guest ({path})", host, guest, tmp_path)


def test_guest_address_replaced_mid_stream_recovers_within_3_s_without_rejoin(netlab, lab_server, tmp_path):
    """The guest publishes too, so a rejoin would show on the host as its leave and join."""
    srv, server = lab_server
    home1, home2 = netlab.nat_home("home1"), netlab.nat_home("home2")
    _resolve_stage(netlab, srv, home1, home2)
    arn = server.create_stage("move")
    host = Participant(netlab, home1, tmp_path, "host", server.token(arn, "host")["token"], "--camera", "test", "--mic", "tone",
                       "--size", "640x360", "--fps", str(FPS), "--simulcast", "off", "--status-interval", "1")
    guest = Participant(netlab, home2, tmp_path, "guest", server.token(arn, "guest")["token"], "--camera", "test", "--mic", "none",
                        "--size", "320x180", "--fps", str(FPS), "--simulcast", "off", "--record", str(tmp_path / "rec"),
                        "--status-interval", "1")
    try:
        _wait_recording(guest, "host", 3)
        before, old = guest.paths()[-1], home2.v4
        moved_at = time.monotonic()
        new = netlab.replace_address(home2)
        guest.wait_for(lambda p: any(path.startswith(f"host udp {new}:") for path in p.paths()), 10, f"a path from {new}")
        print(f"path moved from {old} to {new}: {before} → {guest.paths()[-1]} (seen {time.monotonic() - moved_at:.1f} s after the change)")
        time.sleep(4)
    finally:
        guest_out, host_out = guest.leave(), host.leave()
    print(f"--- guest ---\n{guest_out[-1500:]}\n--- host ---\n{host_out[-1500:]}")
    gap, stall = largest_media_gap(_recording(tmp_path)), longest_decode_stall(guest, "host")
    print(f"largest gap in the guest's recording: {gap:.2f} s of media time; longest time without a new decoded frame: {stall:.1f} s")
    assert gap < 3.0 and stall < 3.0
    host_saw = [e["event"] for e in host.events() if e.get("userId") == "guest"]
    assert host_saw.count("participantDidJoin") == 1 and "participantDidLeave" not in host_saw[:-1], host_saw
    states = [e["state"] for e in guest.events() if e["event"] == "didChangeConnectionState"]
    assert states[:2] == ["connecting", "connected"] and len(states) <= 3, states


@pytest.mark.parametrize("udp_blocked", [False, True], ids=["udp", "udp-blocked-ice-tcp"])
def test_chromium_in_a_nat_home_publishes_over_whip_and_an_sdk_guest_watches(netlab, lab_server, tmp_path, udp_blocked):
    srv, server = lab_server
    browser_home, guest_home = netlab.nat_home("browser", udp_blocked=udp_blocked), netlab.nat_home("home2")
    _resolve_stage(netlab, srv, browser_home, guest_home)
    arn = server.create_stage("chromium")
    page = tmp_path / "publish.html"
    page.write_text(publisher_page("http://stage.test:8080/whip", server.token(arn, "chromium", "PUBLISH")["token"],
                                   video="{width: 640, height: 360, frameRate: 20}", encodings="[{}]"))
    browser_log = open(tmp_path / "chromium.log", "wb")
    browser = netlab.popen(browser_home, ["timeout", "60", "chromium", *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}",
                                          page.as_uri()], stdout=browser_log, stderr=subprocess.STDOUT)
    guest = Participant(netlab, guest_home, tmp_path, "guest", server.token(arn, "guest", "SUBSCRIBE")["token"], "--strategy", "viewer",
                        "--camera", "none", "--mic", "none", "--record", str(tmp_path / "rec"), "--status-interval", "1")
    try:
        _wait_recording(guest, "chromium", RECORD_SECONDS)
    finally:
        guest_out = guest.leave()
        browser.terminate()
        browser.wait()
        browser_log.close()
    console = (tmp_path / "chromium.log").read_text(errors="replace")
    pairs = console_lines(tmp_path / "chromium.log", "PAIR")
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
