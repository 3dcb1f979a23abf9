"""Helpers for the server-side composition tests and benchmark: IVS clients, publishing CLI
hosts, HLS fetches, and pixel checks on frames decoded with ffmpeg."""
import contextlib
import os
import pathlib
import re
import statistics
import subprocess
import time

import boto3
import requests
from botocore.config import Config

from conftest import ACCESS_KEY, REGION, SECRET_KEY, stop_process

REPO = pathlib.Path(__file__).resolve().parents[2]


def clients(server):
    config = Config(retries={"mode": "standard", "total_max_attempts": 2}, connect_timeout=5, read_timeout=30)
    make = lambda name: boto3.client(name, endpoint_url=server.url, region_name=REGION, aws_access_key_id=ACCESS_KEY,
                                     aws_secret_access_key=SECRET_KEY, config=config)
    return make("ivs"), make("ivs-realtime")


def stage_cli(server):
    return pathlib.Path(server.binary).parent / "stage"


class Host:
    """A `stage join` process publishing the test camera and a tone, subscribing to nobody."""

    def __init__(self, server, realtime, stage_arn, workdir, user_id, attributes=None, size="640x360", camera="test"):
        token = realtime.create_participant_token(stageArn=stage_arn, userId=user_id, capabilities=["PUBLISH"],
                                                  attributes=attributes or {})["participantToken"]
        self.participant_id = token["participantId"]
        self.log_path = workdir / f"host-{user_id}.log"
        log = open(self.log_path, "wb")
        args = [str(stage_cli(server)), "join", "--token", token["token"], "--strategy", "broadcast",
                "--size", size, "--camera", camera, "--status-interval", "0"]
        self.process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        log.close()

    def stop(self):
        stop_process(self.process)


def wait_published(realtime, stage_arn, count, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        listed = realtime.list_participants(stageArn=stage_arn, sessionId=active_session(realtime, stage_arn),
                                            filterByPublished=True)["participants"]
        listed = [p for p in listed if p.get("state") == "CONNECTED"]
        if len(listed) >= count:
            return
        time.sleep(0.3)
    raise AssertionError(f"{count} publishers did not appear within {timeout} s")


def active_session(realtime, stage_arn):
    return realtime.get_stage(arn=stage_arn)["stage"].get("activeSessionId") or "st-0000000000000"


def wait_composition(realtime, arn, states, timeout):
    """Polls GetComposition until its state is one of `states`; returns (composition, seconds waited)."""
    start = time.monotonic()
    composition = None
    while time.monotonic() - start < timeout:
        composition = realtime.get_composition(arn=arn)["composition"]
        if composition["state"] in states:
            return composition, time.monotonic() - start
        time.sleep(0.1)
    raise AssertionError(f"composition still {composition and composition['state']} after {timeout} s: {composition}")


def variant_urls(master_url):
    text = requests.get(master_url, timeout=10).text
    base = master_url.rsplit("/", 1)[0]
    return [f"{base}/{line}" for line in text.splitlines() if line and not line.startswith("#")], text


def ffprobe_streams(url):
    out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name,width,height,r_frame_rate,sample_rate",
                          "-of", "compact=p=0:nk=0", url], capture_output=True, text=True, timeout=60)
    return out.stdout.strip().splitlines(), out.stderr


def ffprobe_duration(url):
    out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", url],
                         capture_output=True, text=True, timeout=120)
    return float(out.stdout.strip() or "nan")


def grab_luma(url, width, height, skip_seconds=0.0):
    """One frame of the stream as 8-bit luma rows (ffmpeg decodes it)."""
    args = ["ffmpeg", "-v", "error", "-live_start_index", "-1", "-i", url]
    if skip_seconds:
        args += ["-ss", str(skip_seconds)]
    args += ["-frames:v", "1", "-vf", f"scale={width}:{height}", "-f", "rawvideo", "-pix_fmt", "gray", "-"]
    data = subprocess.run(args, capture_output=True, timeout=60).stdout
    assert len(data) == width * height, f"no frame decoded from {url}"
    return [data[y * width:(y + 1) * width] for y in range(height)]


def luma_of_png(path, width, height):
    data = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-vf", f"scale={width}:{height}", "-f", "rawvideo",
                           "-pix_fmt", "gray", "-"], capture_output=True, timeout=30).stdout
    assert len(data) == width * height
    return [data[y * width:(y + 1) * width] for y in range(height)]


def region_spread(rows, x, y, w, h):
    """Standard deviation of the luma in a box: a test pattern is busy, a background is flat."""
    values = [v for row in rows[y:y + h] for v in row[x:x + w:2]]
    return statistics.pstdev(values)


def compositor_pids(server):
    out = subprocess.run(["pgrep", "-P", str(server.proc.pid), "-f", "stage-compositor"], capture_output=True, text=True)
    return [int(p) for p in out.stdout.split()]


def playlist_parts(text):
    """[(msn, part)] of every EXT-X-PART, from the part URIs `<msn>.<part>.m4s`."""
    return [tuple(int(n) for n in m.groups()) for m in re.finditer(r'#EXT-X-PART:[^\n]*URI="(\d+)\.(\d+)\.m4s"', text)]


def segments_with_dates(text):
    """[(wall-clock start in seconds, uri)] of the complete segments of a media playlist."""
    import datetime
    result, start = [], None
    for line in text.splitlines():
        if line.startswith("#EXT-X-PROGRAM-DATE-TIME:"):
            start = datetime.datetime.fromisoformat(line.split(":", 1)[1].replace("Z", "+00:00")).timestamp()
        elif line and not line.startswith("#") and start is not None:
            result.append((start, line))
    return result


def decode_frames(data, width, height):
    """Every frame of an init section + segment, as luma rows at width × height."""
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", "-", "-vf", f"scale={width}:{height}", "-f", "rawvideo",
                          "-pix_fmt", "gray", "-"], input=data, capture_output=True, timeout=60).stdout
    size = width * height
    return [[out[i + y * width:i + (y + 1) * width] for y in range(height)] for i in range(0, len(out) - size + 1, size)]


def make_flash_and_beep(folder, seconds=3):
    """A camera file that flashes white for two frames every second and a microphone file that
    beeps (1 kHz, 60 ms) at the same instants: the lip-sync probe."""
    video, audio = folder / "flash.y4m", folder / "beep.wav"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"color=black:s=320x180:r=30:d={seconds}",
                    "-vf", "geq=lum='if(lt(mod(N\\,30)\\,2)\\,235\\,16)':cb=128:cr=128", "-pix_fmt", "yuv420p", str(video)], check=True)
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                    f"aevalsrc='if(lt(mod(t\\,1)\\,0.06)\\,0.8*sin(2*PI*1000*t)\\,0)':s=48000:d={seconds}",
                    "-ac", "1", "-c:a", "pcm_s16le", str(audio)], check=True)
    return video, audio


def flash_and_beep_times(path):
    """(flash onsets, beep onsets) in seconds of presentation time in a recorded file."""
    import struct
    out = subprocess.run(["ffprobe", "-v", "error", "-f", "lavfi", "-i", f"movie={path},signalstats",
                          "-show_entries", "frame=pts_time:frame_tags=lavfi.signalstats.YAVG", "-of", "csv=p=0"],
                         capture_output=True, text=True, timeout=60).stdout
    flashes, previous = [], 0.0
    for line in out.splitlines():
        fields = line.split(",")
        if len(fields) < 2:
            continue
        at, luma = float(fields[0]), float(fields[1])
        if luma > 100 >= previous and (not flashes or at - flashes[-1] > 0.5):
            flashes.append(at)
        previous = luma
    start = float(subprocess.run(["ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "stream=start_time",
                                  "-of", "csv=p=0", str(path)], capture_output=True, text=True).stdout.strip() or 0)
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-vn", "-ac", "1", "-ar", "48000", "-f", "s16le", "-"],
                         capture_output=True, timeout=60).stdout
    samples = struct.unpack(f"<{len(raw) // 2}h", raw)
    beeps, quiet = [], 0
    for index in range(0, len(samples), 48):
        loud = max(abs(s) for s in samples[index:index + 48]) > 3000
        if loud and quiet >= 48 * 200:
            beeps.append(start + index / 48000)
        quiet = 0 if loud else quiet + 48
    return flashes, beeps
