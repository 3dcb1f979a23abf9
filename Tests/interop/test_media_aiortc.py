"""Real media through the SFU: aiortc publishes VP8 + Opus over WHIP, a second aiortc
subscribes over WHEP and decodes. Frames carry their number in a pattern of black and white
blocks, so the subscriber can tell exactly which frames arrived."""
import asyncio
import fractions
import time

import aioice.ice
import numpy
import pytest
import requests
from aiortc import RTCBundlePolicy, RTCConfiguration, RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import AudioStreamTrack, VideoStreamTrack
from av import VideoFrame

# aioice skips loopback addresses; the server and both peers live on 127.0.0.1.
aioice.ice.get_host_addresses = lambda *args, **kwargs: ["127.0.0.1"]

WIDTH, HEIGHT, BITS, BLOCK = 320, 240, 12, 20


def encode_number(number):
    image = numpy.full((HEIGHT, WIDTH, 3), 128, numpy.uint8)
    for bit in range(BITS):
        value = 255 if number >> bit & 1 else 0
        image[0:BLOCK, bit * BLOCK:(bit + 1) * BLOCK] = value
    return image


def decode_number(image):
    number = 0
    for bit in range(BITS):
        if image[2:BLOCK - 2, bit * BLOCK + 2:(bit + 1) * BLOCK - 2].mean() > 128:
            number |= 1 << bit
    return number


class NumberedVideo(VideoStreamTrack):
    """30 fps frames whose top row of blocks spells the frame number."""

    def __init__(self):
        super().__init__()
        self.sent = 0

    async def recv(self):
        pts, time_base = await self.next_timestamp()
        frame = VideoFrame.from_ndarray(encode_number(self.sent + 1), format="bgr24")
        frame.pts, frame.time_base = pts, time_base
        self.sent += 1
        return frame


def peer():
    return RTCPeerConnection(RTCConfiguration(iceServers=[], bundlePolicy=RTCBundlePolicy.MAX_BUNDLE))


async def post_offer(pc, url, token, remb=False):
    """POSTs the peer's offer (WHIP or WHEP) and applies the answer; returns the Location.

    Without `remb`, abs-send-time is left out of the offer, so an aiortc viewer sends no REMB.
    These viewers check what the camera or the SFU delivers, not adaptation: with REMB, aiortc
    viewers on the unshaped loopback got a lower layer than the tests expect (three tests failed
    in a CI-like run, two of six in a rerun; all pass without it). aiortc's receive-side
    estimate runs in Python beside its decoder; that it reads its own processing delay as
    over-use on a loaded 2-core machine is the likely cause, not verified.
    The REMB path has its own test (test_downlink_adaptation.py, aiortc_viewer.py)."""
    await pc.setLocalDescription(await pc.createOffer())
    sdp = pc.localDescription.sdp
    if not remb:
        sdp = "".join(line for line in sdp.splitlines(keepends=True) if "abs-send-time" not in line)
    response = await asyncio.to_thread(
        requests.post, url, data=sdp,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/sdp"}, timeout=10)
    assert response.status_code == 201, response.text
    assert response.headers["Content-Type"].startswith("application/sdp")
    await pc.setRemoteDescription(RTCSessionDescription(sdp=response.text, type="answer"))
    return response.headers["Location"]


async def receive_frames(track, seen, deadline):
    while time.monotonic() < deadline:
        try:
            frame = await asyncio.wait_for(track.recv(), timeout=max(0.1, deadline - time.monotonic()))
        except (asyncio.TimeoutError, Exception):
            return
        seen.add(decode_number(frame.to_ndarray(format="bgr24")))


async def publish_and_watch(server_url, publisher_token, publisher_id, viewer_token, seconds):
    video = NumberedVideo()
    publisher = peer()
    publisher.addTrack(video)
    publisher.addTrack(AudioStreamTrack())
    whip_resource = await post_offer(publisher, f"{server_url}/whip", publisher_token)

    viewer = peer()
    viewer.addTransceiver("video", direction="recvonly")
    viewer.addTransceiver("audio", direction="recvonly")
    seen, audio_frames, tasks = set(), [0], []
    deadline = time.monotonic() + seconds + 2

    @viewer.on("track")
    def on_track(track):
        if track.kind == "video":
            tasks.append(asyncio.ensure_future(receive_frames(track, seen, deadline)))
        else:
            async def count_audio():
                # Up to the deadline for each frame, as for video: under load the first one can
                # take more than a second after the track event (a 1 s limit counted 0 once).
                while time.monotonic() < deadline:
                    try:
                        await asyncio.wait_for(track.recv(), timeout=max(0.1, deadline - time.monotonic()))
                        audio_frames[0] += 1
                    except Exception:
                        return
            tasks.append(asyncio.ensure_future(count_audio()))

    # The viewer starts right after the publisher so it can receive (nearly) every frame.
    sent_before_viewer = video.sent
    whep_resource = await post_offer(viewer, f"{server_url}/whep/{publisher_id}", viewer_token)
    await asyncio.sleep(seconds)
    sent = video.sent
    await publisher.close()
    await asyncio.sleep(1.0)
    await viewer.close()
    for task in tasks:
        task.cancel()
    return dict(sent=sent, sent_before_viewer=sent_before_viewer, seen=seen, audio_frames=audio_frames[0],
                whip=whip_resource, whep=whep_resource)


def test_aiortc_whip_publisher_to_whep_subscriber(server, client, make_stage):
    stage = make_stage()
    publisher = client.create_participant_token(stageArn=stage["arn"], userId="aiortc-publisher",
                                                capabilities=["PUBLISH"])["participantToken"]
    viewer = client.create_participant_token(stageArn=stage["arn"], userId="aiortc-viewer",
                                             capabilities=["SUBSCRIBE"])["participantToken"]
    result = asyncio.run(publish_and_watch(server.url, publisher["token"], publisher["participantId"],
                                           viewer["token"], seconds=10))
    sent = result["sent"]
    received = len([n for n in result["seen"] if 1 <= n <= sent])
    print(f"sent {sent} frames, subscriber decoded {received} distinct ones ({received / sent:.1%}), "
          f"{result['audio_frames']} audio frames")
    assert sent >= 250, "the publisher should send ~30 fps for 10 s"
    assert received >= 0.95 * sent
    assert result["audio_frames"] > 200
    assert result["whip"].startswith("/whip/") and result["whep"].startswith("/whep/resource/")


def test_whip_refuses_subscribe_only_token_and_bad_sdp(server, client, make_stage):
    stage = make_stage()
    viewer = client.create_participant_token(stageArn=stage["arn"], capabilities=["SUBSCRIBE"])["participantToken"]
    publisher = client.create_participant_token(stageArn=stage["arn"], capabilities=["PUBLISH"])["participantToken"]
    post = lambda token, body, ctype="application/sdp": requests.post(
        f"{server.url}/whip", data=body, timeout=10,
        headers={"Authorization": f"Bearer {token}", "Content-Type": ctype})
    assert post(viewer["token"], "v=0\r\n").status_code == 403
    assert post("not-a-token", "v=0\r\n").status_code == 401
    bad = post(publisher["token"], "this is not sdp")
    assert bad.status_code == 400 and "offer" in bad.text
    assert post(publisher["token"], "v=0\r\n", "text/plain").status_code == 415
    huge = post(publisher["token"], "a=" + "x" * 40000)
    assert huge.status_code in (400, 413)
    assert requests.post(f"{server.url}/whep/nobody", data="v=0\r\n", timeout=10,
                         headers={"Authorization": f"Bearer {viewer['token']}",
                                  "Content-Type": "application/sdp"}).status_code in (400, 404)


def test_whip_and_whep_resources_need_their_owners_token(server, client, make_stage):
    """RFC 9725 §4.4: DELETE and the layer extension on a WHIP/WHEP resource need the bearer
    token of the participant that created it: 401 without one, 403 with another's, 200/204
    with its own."""
    stage = make_stage()
    publisher = client.create_participant_token(stageArn=stage["arn"], capabilities=["PUBLISH"])["participantToken"]
    viewer = client.create_participant_token(stageArn=stage["arn"], capabilities=["SUBSCRIBE"])["participantToken"]
    other = client.create_participant_token(stageArn=stage["arn"], capabilities=["SUBSCRIBE"])["participantToken"]

    async def negotiate_and_check():
        publish_pc, watch_pc = peer(), peer()
        try:
            publish_pc.addTrack(NumberedVideo())
            whip = await post_offer(publish_pc, f"{server.url}/whip", publisher["token"])
            watch_pc.addTransceiver("video", direction="recvonly")
            whep = await post_offer(watch_pc, f"{server.url}/whep/{publisher['participantId']}", viewer["token"])
            await asyncio.to_thread(check, whip, whep)
        finally:
            await publish_pc.close()
            await watch_pc.close()

    def check(whip, whep):
        bearer = lambda token: {"Authorization": f"Bearer {token}"}
        layer = f"{server.url}{whep}/layer"
        assert requests.post(layer, json={"encodingId": "f"}, timeout=10).status_code == 401
        assert requests.post(layer, json={"encodingId": "f"}, headers=bearer(other["token"]), timeout=10).status_code == 403
        assert requests.delete(f"{server.url}{whep}", timeout=10).status_code == 401
        assert requests.delete(f"{server.url}{whep}", headers=bearer(other["token"]), timeout=10).status_code == 403
        assert requests.delete(f"{server.url}{whip}", headers=bearer(viewer["token"]), timeout=10).status_code == 403
        assert requests.delete(f"{server.url}{whep}", headers=bearer(viewer["token"]), timeout=10).status_code == 200
        assert requests.delete(f"{server.url}{whip}", headers=bearer(publisher["token"]), timeout=10).status_code == 200
        assert requests.delete(f"{server.url}{whip}", headers=bearer(publisher["token"]), timeout=10).status_code == 404

    asyncio.run(negotiate_and_check())
