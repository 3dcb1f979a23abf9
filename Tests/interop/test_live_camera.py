"""A live camera: `ffmpeg … -f yuv4mpegpipe - | stage join --camera -` (and a FIFO) publishes
what the producer writes, paced by it; aiortc watches over WHEP and compares the picture with
the producer's own frame."""
import asyncio
import os
import subprocess
import time

import numpy as np

from test_media_aiortc import peer, post_offer
from test_sdk_media_interop import stage_cli, stop_join, wait_published
from conftest import ACCESS_KEY, SECRET_KEY
from xdisplay import free_display, grab_luma, xvfb

SIZE = (640, 360)


def producer_args(seconds, output="-"):
    """SMPTE bars (a still picture, so any frame compares) at 30 fps, in real time."""
    return ["ffmpeg", "-v", "error", "-re", "-f", "lavfi", "-i", f"smptebars=size={SIZE[0]}x{SIZE[1]}:rate=30",
            "-t", str(seconds), "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-y", output]


def reference_luma():
    raw = subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", f"smptebars=size={SIZE[0]}x{SIZE[1]}:rate=30",
                          "-frames:v", "1", "-pix_fmt", "yuv420p", "-f", "rawvideo", "-"],
                         capture_output=True, check=True).stdout
    return np.frombuffer(raw[:SIZE[0] * SIZE[1]], dtype=np.uint8).reshape(SIZE[1], SIZE[0])


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return 99.0 if mse == 0 else 10 * np.log10(255 ** 2 / mse)


async def watch(url, publisher_id, token, seconds):
    viewer = peer()
    viewer.addTransceiver("video", direction="recvonly")
    frames, last = [0], [None]
    done = time.monotonic() + seconds

    @viewer.on("track")
    def on_track(track):
        async def pump():
            while time.monotonic() < done:
                try:
                    frame = await asyncio.wait_for(track.recv(), timeout=1)
                except Exception:
                    return
                frames[0] += 1
                last[0] = frame
        asyncio.ensure_future(pump())

    await post_offer(viewer, f"{url}/whep/{publisher_id}", token)
    await asyncio.sleep(seconds)
    await viewer.close()
    return frames[0], last[0]


def run_live_camera(server, client, make_stage, tmp_path, camera_arg, stdin):
    stage = make_stage()
    host = client.create_participant_token(stageArn=stage["arn"], userId="live-host")["participantToken"]
    viewer = client.create_participant_token(stageArn=stage["arn"], capabilities=["SUBSCRIBE"])["participantToken"]
    env = dict(os.environ, AWS_ACCESS_KEY_ID=ACCESS_KEY, AWS_SECRET_ACCESS_KEY=SECRET_KEY, STAGE_ENDPOINT=server.url)
    log = open(tmp_path / "join.log", "w+")
    process = subprocess.Popen([str(stage_cli(server)), "join", "--token", host["token"], "--camera", camera_arg,
                                "--mic", "none", "--status-interval", "0"], stdin=stdin, stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        assert wait_published(client, stage["arn"], timeout=20), "the live camera never published"
        frames, last = asyncio.run(watch(server.url, host["participantId"], viewer["token"], seconds=5))
    finally:
        output = stop_join(process, log)
    print(output[-600:])
    print(f"aiortc decoded {frames} frames of the live camera; last {last.width}x{last.height}" if last else "no frame")
    assert f"camera: " in output and f"{SIZE[0]}x{SIZE[1]} at 30.0 fps" in output, output[-2000:]
    assert frames >= 0.8 * 30 * 4, output[-2000:]
    assert (last.width, last.height) == SIZE
    luma = last.to_ndarray(format="yuv420p")[:SIZE[1], :]
    quality = psnr(luma, reference_luma())
    print(f"PSNR of the received picture against the producer's: {quality:.1f} dB")
    assert quality >= 30, quality


def test_a_yuv4mpeg_stream_on_stdin_is_a_camera(server, client, make_stage, tmp_path):
    producer = subprocess.Popen(producer_args(20), stdout=subprocess.PIPE)
    try:
        run_live_camera(server, client, make_stage, tmp_path, "-", producer.stdout)
    finally:
        producer.kill()
        producer.wait()


def test_a_fifo_is_a_camera(server, client, make_stage, tmp_path):
    fifo = tmp_path / "camera.y4m"
    os.mkfifo(fifo)
    producer = subprocess.Popen(producer_args(20, str(fifo)))
    try:
        run_live_camera(server, client, make_stage, tmp_path, str(fifo), subprocess.DEVNULL)
    finally:
        producer.kill()
        producer.wait()


def test_a_silent_camera_is_a_clear_error(server, client, make_stage, tmp_path):
    """A FIFO nobody writes, or a path that does not exist: an error naming it, not a hang."""
    stage = make_stage()
    host = client.create_participant_token(stageArn=stage["arn"])["participantToken"]
    env = dict(os.environ, AWS_ACCESS_KEY_ID=ACCESS_KEY, AWS_SECRET_ACCESS_KEY=SECRET_KEY, STAGE_ENDPOINT=server.url)
    fifo = tmp_path / "silent.y4m"
    os.mkfifo(fifo)
    for camera, words in [(str(fifo), "no YUV4MPEG2 header"), (str(tmp_path / "missing"), "test, none, -, a FIFO")]:
        done = subprocess.run([str(stage_cli(server)), "join", "--token", host["token"], "--camera", camera],
                              capture_output=True, text=True, env=env, timeout=60, stdin=subprocess.DEVNULL)
        assert done.returncode != 0 and words in done.stderr, done.stderr
        assert camera in done.stderr


def test_the_screen_is_a_camera(server, client, make_stage, tmp_path):
    """`--camera screen:DISPLAY` publishes an X display (Xvfb here, with xlogo and xclock on
    it); the far side's picture matches a grab of the same display."""
    with xvfb() as display:
        env = dict(os.environ, DISPLAY=display)
        clients = [subprocess.Popen(["xlogo", "-geometry", "600x400+100+100"], env=env),
                   subprocess.Popen(["xclock", "-geometry", "300x300+850+200", "-update", "3600"], env=env)]
        try:
            time.sleep(1)   # the clients draw their windows
            frames, last = publish_screen(server, client, make_stage, tmp_path, display)
            assert last is not None and (last.width, last.height) == (1280, 720)
            received = last.to_ndarray(format="yuv420p")[:720, :]
            quality = psnr(received, grab_luma(display, (1280, 720)))
        finally:
            for c in clients:
                c.kill()
    print(f"screen: {frames} frames in 5 s; PSNR against a grab of {display}: {quality:.1f} dB")
    assert quality >= 30, quality
    assert frames >= 30, "a still screen still sends frames"


def publish_screen(server, client, make_stage, tmp_path, display):
    """`stage join --camera screen:DISPLAY`, watched over WHEP for 5 s: (frames, last frame)."""
    stage = make_stage()
    host = client.create_participant_token(stageArn=stage["arn"], userId="screen-host")["participantToken"]
    viewer = client.create_participant_token(stageArn=stage["arn"], capabilities=["SUBSCRIBE"])["participantToken"]
    join_env = dict(os.environ, AWS_ACCESS_KEY_ID=ACCESS_KEY, AWS_SECRET_ACCESS_KEY=SECRET_KEY, STAGE_ENDPOINT=server.url)
    log = open(tmp_path / "join.log", "w+")
    process = subprocess.Popen([str(stage_cli(server)), "join", "--token", host["token"], "--camera", f"screen:{display}",
                                "--mic", "none", "--size", "1280x720", "--status-interval", "0"],
                               stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=join_env)
    try:
        assert wait_published(client, stage["arn"], timeout=20), "the screen never published"
        return asyncio.run(watch(server.url, host["participantId"], viewer["token"], seconds=5))
    finally:
        print(stop_join(process, log)[-400:])


def test_a_missing_display_is_a_clear_error(server, client, make_stage):
    stage = make_stage()
    host = client.create_participant_token(stageArn=stage["arn"])["participantToken"]
    env = dict(os.environ, AWS_ACCESS_KEY_ID=ACCESS_KEY, AWS_SECRET_ACCESS_KEY=SECRET_KEY, STAGE_ENDPOINT=server.url)
    display = free_display()
    started = time.monotonic()
    done = subprocess.run([str(stage_cli(server)), "join", "--token", host["token"], "--camera", f"screen:{display}"],
                          capture_output=True, text=True, env=env, timeout=60, stdin=subprocess.DEVNULL)
    print(done.stderr.strip(), f"({time.monotonic() - started:.2f} s)")
    assert done.returncode != 0 and f"screen {display}" in done.stderr, done.stderr
