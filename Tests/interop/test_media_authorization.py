"""Media follows authorization (issue 11, finding 1): DisconnectParticipant and DeleteStage end
the participant's media — WHIP publish and WHEP subscribe sessions close (DTLS close_notify) and
frames stop within a second — and nobody can subscribe to a kicked publisher afterwards.

Each test runs on three servers: one media worker; two (`--media-workers 2`), where a `stage join`
host publishes on a ballast stage for the whole module, so every test's stage is placed on the
second worker (the least loaded) and its media there is what must stop; and two with
`--worker-max-consumers 1`, where a first WHEP viewer fills the stage's worker, so the watching
viewer is on a router of the stage on the other worker, piped from the first. Each test checks in
/metrics that its stage's routers and consumers are where it expects."""
import asyncio
import re
import time

import boto3
import pytest
import requests
from botocore.config import Config

from composition import Host, wait_published
from conftest import ACCESS_KEY, REGION, SECRET_KEY, StageServer, server_binary
from test_media_aiortc import NumberedVideo, peer, post_offer


# (media workers, extra flags, a first viewer fills the stage's worker, routers and consumers per worker while watched)
LAYOUTS = {
    "1-worker": (1, [], False, [1], [1]),
    "2-workers": (2, [], False, [1, 1], [0, 1]),
    "2-workers-piped": (2, ["--worker-max-consumers", "1"], True, [1, 1], [1, 1]),
}


@pytest.fixture(scope="module", params=list(LAYOUTS))
def server(request, tmp_path_factory):
    workers, flags, filled, routers, consumers = LAYOUTS[request.param]
    srv = StageServer(server_binary(), tmp_path_factory.mktemp(request.param), ["--media-workers", str(workers), *flags])
    srv.workers, srv.filled, srv.expected = workers, filled, (routers, consumers)
    try:
        srv.start()
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="module")
def client(server):
    return boto3.client("ivs-realtime", endpoint_url=server.url, region_name=REGION, aws_access_key_id=ACCESS_KEY,
                        aws_secret_access_key=SECRET_KEY, config=Config(retries={"mode": "standard", "total_max_attempts": 2}))


@pytest.fixture(scope="module", autouse=True)
def ballast(server, client, tmp_path_factory):
    """With two workers and no pipe, a publisher that keeps the first one busy all module long."""
    if server.workers == 1 or server.filled:
        yield None
        return
    stage = client.create_stage(name="ballast")["stage"]
    host = Host(server, client, stage["arn"], tmp_path_factory.mktemp("ballast"), "ballast", size="320x180")
    try:
        wait_published(client, stage["arn"], 1)
        assert _per_worker(server) == [1, 0], _per_worker(server)
        yield host
    finally:
        host.stop()


def _per_worker(server, name="routers"):
    """A per-worker gauge (`proscenium_media_worker_<name>`) from /metrics, by worker index."""
    text = requests.get(f"{server.url}/metrics", timeout=5).text
    found = {int(m.group(1)): int(float(m.group(2)))
             for m in re.finditer(rf'^proscenium_media_worker_{name}\{{worker="(\d+)"\}} (\S+)$', text, re.M)}
    return [found.get(index, 0) for index in range(server.workers)]


def on_its_worker(server, action):
    """`action`, once /metrics shows the test's routers and consumers where the layout puts them."""
    def checked():
        assert (_per_worker(server), _per_worker(server, "consumers")) == server.expected, (_per_worker(server), _per_worker(server, "consumers"))
        action()
    return checked


async def watch_over_whep(server_url, publisher_id, viewer_token, action, seconds_after=2.5, filler=False):
    """A WHEP viewer of `publisher_id`; after 2 s of frames runs `action()` (in a thread) and
    returns the arrival times of the viewer's frames and the action's time. With `filler`, a
    first viewer (the same token) subscribes before it."""
    first = None
    if filler:
        first = peer()
        first.addTransceiver("video", direction="recvonly")
        await post_offer(first, f"{server_url}/whep/{publisher_id}", viewer_token)
        await asyncio.sleep(0.5)
    viewer = peer()
    viewer.addTransceiver("video", direction="recvonly")
    arrivals = []

    async def receive(track):
        while True:
            try:
                await asyncio.wait_for(track.recv(), timeout=5)
            except Exception:
                return
            arrivals.append(time.monotonic())

    tasks = []
    viewer.on("track", lambda track: tasks.append(asyncio.ensure_future(receive(track))))
    await post_offer(viewer, f"{server_url}/whep/{publisher_id}", viewer_token)
    await asyncio.sleep(2)
    acted = time.monotonic()
    await asyncio.to_thread(action)
    await asyncio.sleep(seconds_after)
    await viewer.close()
    if first:
        await first.close()
    for task in tasks:
        task.cancel()
    return arrivals, acted


async def watch(server_url, publisher_token, publisher_id, viewer_token, action, filler=False):
    """WHIP publisher → WHEP viewer (`watch_over_whep`); also returns the publisher's connection states."""
    publisher = peer()
    publisher.addTrack(NumberedVideo())
    states = []
    publisher.on("connectionstatechange", lambda: states.append((time.monotonic(), publisher.connectionState)))
    await post_offer(publisher, f"{server_url}/whip", publisher_token)
    arrivals, acted = await watch_over_whep(server_url, publisher_id, viewer_token, action, filler=filler)
    await publisher.close()
    return arrivals, acted, states


def stopped_within(arrivals, acted):
    before = [t for t in arrivals if t < acted]
    after = [t for t in arrivals if t >= acted]
    return len(before), (after[-1] - acted if after else 0.0)


def test_disconnecting_a_whip_publisher_ends_its_media(server, client, make_stage):
    stage = make_stage(name="kick-media")
    publisher = client.create_participant_token(stageArn=stage["arn"], userId="pub", capabilities=["PUBLISH"])["participantToken"]
    viewer = client.create_participant_token(stageArn=stage["arn"], userId="view", capabilities=["SUBSCRIBE"])["participantToken"]
    late = client.create_participant_token(stageArn=stage["arn"], userId="late", capabilities=["SUBSCRIBE"])["participantToken"]

    def kick():
        client.disconnect_participant(stageArn=stage["arn"], participantId=publisher["participantId"], reason="bye")

    arrivals, acted, states = asyncio.run(watch(server.url, publisher["token"], publisher["participantId"], viewer["token"],
                                                on_its_worker(server, kick), filler=server.filled))
    frames_before, last_after = stopped_within(arrivals, acted)
    print(f"{frames_before} frames before the kick; the last one {last_after:.3f} s after it; publisher states {[s for _, s in states]}")
    assert frames_before > 30
    assert last_after <= 1.0
    # The publisher's connection was ended by the server, not by its own close.
    ended = [t for t, s in states if s in ("closed", "failed") and t > acted]
    assert ended and ended[0] - acted <= 1.5, states
    # Nobody can watch the kicked participant any more.
    response = requests.post(f"{server.url}/whep/{publisher['participantId']}", data="v=0\r\n", timeout=10,
                             headers={"Authorization": f"Bearer {late['token']}", "Content-Type": "application/sdp"})
    assert response.status_code in (400, 404), response.text


def test_deleting_the_stage_ends_its_media(server, client, make_stage):
    stage = make_stage(name="delete-media")
    publisher = client.create_participant_token(stageArn=stage["arn"], userId="pub", capabilities=["PUBLISH"])["participantToken"]
    viewer = client.create_participant_token(stageArn=stage["arn"], userId="view", capabilities=["SUBSCRIBE"])["participantToken"]

    def delete():
        client.delete_stage(arn=stage["arn"])

    arrivals, acted, _ = asyncio.run(watch(server.url, publisher["token"], publisher["participantId"], viewer["token"],
                                           on_its_worker(server, delete), filler=server.filled))
    frames_before, last_after = stopped_within(arrivals, acted)
    print(f"{frames_before} frames before DeleteStage; the last one {last_after:.3f} s after it")
    assert frames_before > 30 and last_after <= 1.0


def test_disconnecting_a_whep_viewer_ends_its_session(server, client, make_stage):
    """A participant whose only presence is a WHEP session is disconnected too (not 404)."""
    stage = make_stage(name="kick-viewer")
    publisher = client.create_participant_token(stageArn=stage["arn"], userId="pub", capabilities=["PUBLISH"])["participantToken"]
    viewer = client.create_participant_token(stageArn=stage["arn"], userId="view", capabilities=["SUBSCRIBE"])["participantToken"]

    def kick():
        client.disconnect_participant(stageArn=stage["arn"], participantId=viewer["participantId"])

    arrivals, acted, _ = asyncio.run(watch(server.url, publisher["token"], publisher["participantId"], viewer["token"],
                                           on_its_worker(server, kick), filler=server.filled))
    frames_before, last_after = stopped_within(arrivals, acted)
    print(f"{frames_before} frames before the viewer was kicked; the last one {last_after:.3f} s after it")
    assert frames_before > 30 and last_after <= 1.0


def test_disconnecting_an_sdk_publisher_ends_its_media(server, client, make_stage, tmp_path):
    """The same for a publisher that negotiated over signaling (`stage join`): a WHEP viewer's
    frames stop within a second of DisconnectParticipant."""
    import subprocess
    from composition import stage_cli
    from conftest import stop_process
    stage = make_stage(name="kick-sdk")
    publisher = client.create_participant_token(stageArn=stage["arn"], userId="host", capabilities=["PUBLISH"])["participantToken"]
    viewer = client.create_participant_token(stageArn=stage["arn"], userId="view", capabilities=["SUBSCRIBE"])["participantToken"]
    host = subprocess.Popen([str(stage_cli(server)), "join", "--token", publisher["token"], "--strategy", "broadcast",
                             "--size", "320x180", "--simulcast", "off", "--status-interval", "0"],
                            stdout=open(tmp_path / "host.log", "wb"), stderr=subprocess.STDOUT)
    try:
        wait_published(client, stage["arn"], 1)
        kick = lambda: client.disconnect_participant(stageArn=stage["arn"], participantId=publisher["participantId"])
        arrivals, acted = asyncio.run(watch_over_whep(server.url, publisher["participantId"], viewer["token"], on_its_worker(server, kick), filler=server.filled))
    finally:
        stop_process(host)
    frames_before, last_after = stopped_within(arrivals, acted)
    print(f"{frames_before} frames before the SDK publisher was kicked; the last one {last_after:.3f} s after it")
    assert frames_before > 20 and last_after <= 1.0
