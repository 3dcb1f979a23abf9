"""A client that negotiates media through the Protocol/ signaling socket (aiortc + JSON
messages, as the SDK will) and a WHEP subscriber receive the same WHIP publisher at once, and
the signaling events follow real media: the publisher is announced when media flows and
removed when it stops."""
import asyncio
import json
import time

import requests
import websockets
from aiortc import RTCSessionDescription
from aiortc.mediastreams import AudioStreamTrack

from test_media_aiortc import NumberedVideo, decode_number, peer, post_offer


async def next_message(ws, wanted, timeout=15):
    deadline = time.monotonic() + timeout
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), timeout=max(0.1, deadline - time.monotonic())))
        if message["type"] in wanted:
            return message


async def count_frames(track, seen, stop_at):
    while time.monotonic() < stop_at:
        try:
            frame = await asyncio.wait_for(track.recv(), timeout=1)
        except Exception:
            return
        seen.add(decode_number(frame.to_ndarray(format="bgr24")))


async def scenario(server_url, stage, tokens, seconds=6):
    events_url = stage["endpoints"]["events"]
    async with websockets.connect(events_url) as ws:
        await ws.send(json.dumps({"v": 1, "type": "join", "token": tokens["watcher"]["token"]}))
        joined = await next_message(ws, {"joined", "error"})
        assert joined["type"] == "joined" and joined["publishers"] == []

        # The publisher's WHIP offer alone announces nothing: media has not flowed yet.
        video = NumberedVideo()
        publisher = peer()
        publisher.addTrack(video)
        publisher.addTrack(AudioStreamTrack())
        announced_at = None
        await post_offer(publisher, f"{server_url}/whip", tokens["publisher"]["token"])
        announcement = await next_message(ws, {"participantJoined"})
        announced_at = video.sent
        assert announcement["participant"]["participantId"] == tokens["publisher"]["participantId"]
        assert sorted(s["kind"] for s in announcement["streams"]) == ["audio", "video"]

        # Subscribe through signaling with SDP, and through WHEP, at the same time.
        stop_at = time.monotonic() + seconds
        signaled, whep = peer(), peer()
        seen = {"signaled": set(), "whep": set()}
        tasks = []
        for name, pc in (("signaled", signaled), ("whep", whep)):
            pc.addTransceiver("video", direction="recvonly")
            pc.addTransceiver("audio", direction="recvonly")
            pc.on("track", lambda track, name=name: tasks.append(asyncio.ensure_future(
                count_frames(track, seen[name], stop_at))) if track.kind == "video" else None)
        await signaled.setLocalDescription(await signaled.createOffer())
        await ws.send(json.dumps({"v": 1, "type": "sdpOffer", "requestId": "sub1", "purpose": "subscribe",
                                  "participantId": tokens["publisher"]["participantId"],
                                  "sdp": signaled.localDescription.sdp}))
        first_frame = video.sent
        await post_offer(whep, f"{server_url}/whep/{tokens['publisher']['participantId']}", tokens["whep"]["token"])
        answer = await next_message(ws, {"sdpAnswer", "error"})
        assert answer["type"] == "sdpAnswer" and answer["requestId"] == "sub1", answer
        await signaled.setRemoteDescription(RTCSessionDescription(sdp=answer["sdp"], type="answer"))

        await asyncio.sleep(seconds)
        last_frame = video.sent
        # Media stops: the watcher is told the publisher is gone.
        await publisher.close()
        left = await next_message(ws, {"participantLeft"})
        assert left["participantId"] == tokens["publisher"]["participantId"]
        for pc in (signaled, whep):
            await pc.close()
        for task in tasks:
            task.cancel()
    return seen, first_frame, last_frame, announced_at


def test_signaling_and_whep_subscribers_receive_the_same_publisher(server, client, make_stage):
    stage = make_stage()
    tokens = {name: client.create_participant_token(stageArn=stage["arn"], userId=name, capabilities=caps)["participantToken"]
              for name, caps in (("publisher", ["PUBLISH"]), ("watcher", ["SUBSCRIBE"]), ("whep", ["SUBSCRIBE"]))}
    seen, first, last, announced_at = asyncio.run(scenario(server.url, stage, tokens))
    window = set(range(first + 15, last - 15))   # frames sent while both subscribers were surely connected
    for name in ("signaled", "whep"):
        got = len(window & seen[name])
        print(f"{name}: {got}/{len(window)} frames in the common window")
        assert got >= 0.9 * len(window), name
    assert announced_at is not None


async def mute_scenario(server_url, stage, tokens):
    events_url = stage["endpoints"]["events"]
    async with websockets.connect(events_url) as ws:
        await ws.send(json.dumps({"v": 1, "type": "join", "token": tokens["publisher"]["token"]}))
        assert (await next_message(ws, {"joined", "error"}))["type"] == "joined"
        video = NumberedVideo()
        publisher = peer()
        publisher.addTrack(video)
        await publisher.setLocalDescription(await publisher.createOffer())
        await ws.send(json.dumps({"v": 1, "type": "sdpOffer", "requestId": "pub1", "purpose": "publish",
                                  "sdp": publisher.localDescription.sdp}))
        answer = await next_message(ws, {"sdpAnswer", "error"})
        assert answer["type"] == "sdpAnswer", answer
        await publisher.setRemoteDescription(RTCSessionDescription(sdp=answer["sdp"], type="answer"))
        state = await next_message(ws, {"publishState"})   # media connected: published
        stream_id = state["streams"][0]["streamId"]

        viewer = peer()
        viewer.addTransceiver("video", direction="recvonly")
        arrivals = []
        stop_at = time.monotonic() + 9

        async def record(track):
            while time.monotonic() < stop_at:
                try:
                    await asyncio.wait_for(track.recv(), timeout=1)
                    arrivals.append(time.monotonic())
                except Exception:
                    if time.monotonic() >= stop_at:
                        return
        tasks = []
        viewer.on("track", lambda track: tasks.append(asyncio.ensure_future(record(track))))
        await post_offer(viewer, f"{server_url}/whep/{tokens['publisher']['participantId']}", tokens["viewer"]["token"])
        await asyncio.sleep(2.5)
        muted_at = time.monotonic()
        await ws.send(json.dumps({"v": 1, "type": "mute", "streamId": stream_id, "muted": True}))
        await asyncio.sleep(2.5)
        unmuted_at = time.monotonic()
        await ws.send(json.dumps({"v": 1, "type": "mute", "streamId": stream_id, "muted": False}))
        await asyncio.sleep(3)
        await publisher.close()
        await viewer.close()
        for task in tasks:
            task.cancel()
    return arrivals, muted_at, unmuted_at


def test_mute_from_signaling_stops_and_resumes_forwarding(server, client, make_stage):
    stage = make_stage()
    tokens = {name: client.create_participant_token(stageArn=stage["arn"], userId=name, capabilities=caps)["participantToken"]
              for name, caps in (("publisher", ["PUBLISH", "SUBSCRIBE"]), ("viewer", ["SUBSCRIBE"]))}
    arrivals, muted_at, unmuted_at = asyncio.run(mute_scenario(server.url, stage, tokens))
    before = [t for t in arrivals if t < muted_at]
    during = [t for t in arrivals if muted_at + 0.5 < t < unmuted_at]
    after = [t for t in arrivals if t > unmuted_at + 1.0]
    print(f"frames before mute {len(before)}, while muted {len(during)}, after unmute {len(after)}")
    assert len(before) > 20 and len(during) == 0 and len(after) > 20
