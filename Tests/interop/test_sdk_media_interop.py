"""Our SDK (through the `stage join` CLI) against aiortc: the SDK publishes VP8 simulcast +
Opus and aiortc subscribes over WHEP; aiortc publishes over WHIP and the SDK subscribes,
decodes (its status block counts decoded frames) and records what it receives with --record,
which ffprobe must read with the right codec, size and duration."""
import asyncio
import json
import os
import pathlib
import re
import signal
import subprocess
import time

from conftest import ACCESS_KEY, SECRET_KEY
from test_media_aiortc import NumberedVideo, decode_number, peer, post_offer
from aiortc.mediastreams import AudioStreamTrack


def stage_cli(server):
    return pathlib.Path(os.environ.get("STAGE_SERVER_BIN", ".build/debug/stage-server")).resolve().parent / "stage"


def start_join(server, token, workdir, *args):
    env = dict(os.environ, AWS_ACCESS_KEY_ID=ACCESS_KEY, AWS_SECRET_ACCESS_KEY=SECRET_KEY, STAGE_ENDPOINT=server.url)
    log = open(workdir / f"join-{time.monotonic_ns()}.log", "w+")
    process = subprocess.Popen([str(stage_cli(server)), "join", "--token", token, *args],
                               stdout=log, stderr=subprocess.STDOUT, env=env)
    return process, log


def stop_join(process, log):
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
    log.seek(0)
    return log.read()


def ffprobe(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name,width,height:format=duration",
                          "-of", "json", str(path)], capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def wait_published(client, arn, timeout=15):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        session = client.get_stage(arn=arn)["stage"].get("activeSessionId")
        if session and any(p.get("published") for p in client.list_participants(stageArn=arn, sessionId=session)["participants"]):
            return True
        time.sleep(0.1)
    return False


async def watch_over_whep(url, publisher_id, token, seconds):
    viewer = peer()
    viewer.addTransceiver("video", direction="recvonly")
    viewer.addTransceiver("audio", direction="recvonly")
    sizes, frames, audio = set(), [0], [0]
    deadline = time.monotonic() + seconds
    tasks = []

    @viewer.on("track")
    def on_track(track):
        async def pump():
            while time.monotonic() < deadline:
                try:
                    frame = await asyncio.wait_for(track.recv(), timeout=1)
                except Exception:
                    return
                if track.kind == "video":
                    frames[0] += 1
                    sizes.add((frame.width, frame.height))
                else:
                    audio[0] += 1
        tasks.append(asyncio.ensure_future(pump()))

    await post_offer(viewer, f"{url}/whep/{publisher_id}", token)
    await asyncio.sleep(seconds)
    await viewer.close()
    for task in tasks:
        task.cancel()
    return frames[0], sizes, audio[0]


def test_sdk_publishes_and_aiortc_subscribes_over_whep(server, client, make_stage, tmp_path):
    stage = make_stage()
    host = client.create_participant_token(stageArn=stage["arn"], userId="sdk-host")["participantToken"]
    viewer = client.create_participant_token(stageArn=stage["arn"], userId="aiortc-viewer",
                                             capabilities=["SUBSCRIBE"])["participantToken"]
    process, log = start_join(server, host["token"], tmp_path, "--size", "640x360", "--fps", "30", "--status-interval", "0")
    try:
        assert wait_published(client, stage["arn"]), "the SDK host never published"
        frames, sizes, audio = asyncio.run(watch_over_whep(server.url, host["participantId"], viewer["token"], seconds=6))
    finally:
        output = stop_join(process, log)
    print(f"aiortc decoded {frames} frames of sizes {sizes} and {audio} audio frames from the SDK")
    assert frames >= 0.8 * 30 * 5, output[-2000:]
    assert (640, 360) in sizes, "WHEP gets the top simulcast layer"
    assert audio >= 200


def test_aiortc_publishes_and_sdk_subscribes_decodes_and_records(server, client, make_stage, tmp_path):
    stage = make_stage()
    publisher = client.create_participant_token(stageArn=stage["arn"], userId="aiortc", capabilities=["PUBLISH"])["participantToken"]
    viewer = client.create_participant_token(stageArn=stage["arn"], userId="sdk-viewer", capabilities=["SUBSCRIBE"])["participantToken"]
    record = tmp_path / "rec"
    process, log = start_join(server, viewer["token"], tmp_path, "--strategy", "viewer", "--record", str(record),
                              "--status-interval", "1")
    seconds = 6

    async def publish():
        pc = peer()
        pc.addTrack(NumberedVideo())
        pc.addTrack(AudioStreamTrack())
        await post_offer(pc, f"{server.url}/whip", publisher["token"])
        await asyncio.sleep(seconds)
        await pc.close()

    try:
        time.sleep(1)
        asyncio.run(publish())
        time.sleep(1)
    finally:
        output = stop_join(process, log)
    decoded = [int(n) for n in re.findall(r"320x240 (\d+) frames", output)]
    print(output[-1500:])
    assert decoded and max(decoded) >= 0.8 * 30 * (seconds - 1), "the SDK decodes aiortc's VP8"
    files = sorted(p.name for p in record.iterdir())
    ivf = next(record / f for f in files if f.endswith(".ivf"))
    ogg = next(record / f for f in files if f.endswith(".ogg"))
    video, audio = ffprobe(ivf), ffprobe(ogg)
    assert video["streams"][0]["codec_name"] == "vp8"
    assert (video["streams"][0]["width"], video["streams"][0]["height"]) == (320, 240)
    assert abs(float(video["format"]["duration"]) - seconds) < 1.0, video
    assert audio["streams"][0]["codec_name"] == "opus"
    assert abs(float(audio["format"]["duration"]) - seconds) < 1.0, audio
