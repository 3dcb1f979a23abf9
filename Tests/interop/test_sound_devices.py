"""Sound through PulseAudio, on a user-space server with null sinks (no sound card needed):
the host's microphone is the monitor of a sink a 1 kHz tone plays into, the guest's
`--speaker` plays into another sink whose monitor the test records; an FFT finds the tone."""
import json
import os
import re
import shutil
import subprocess
import time

import numpy as np
import pytest

from test_sdk_media_interop import stage_cli, stop_join, wait_published
from conftest import ACCESS_KEY, SECRET_KEY
from xdisplay import grab, xvfb

TONE_HZ = 1000


@pytest.fixture
def pulse(tmp_path):
    """A PulseAudio server of our own: sinks `host_in` (the host's microphone is its monitor,
    the default source) and `stage_out` (the default sink: the guest's speaker)."""
    if shutil.which("pulseaudio") is None:
        pytest.fail("pulseaudio is not installed (scripts/setup.sh --interop installs it)")
    runtime = tmp_path / "pulse"
    runtime.mkdir()
    socket = runtime / "native"
    env = dict(os.environ, PULSE_RUNTIME_PATH=str(runtime), HOME=str(runtime), PULSE_SERVER=f"unix:{socket}")
    env.pop("DISPLAY", None)
    server = subprocess.Popen(["pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no",
                               "--log-target=stderr", "--log-level=error",
                               "-L", f"module-native-protocol-unix socket={socket} auth-anonymous=1",
                               "-L", "module-null-sink sink_name=host_in rate=48000",
                               "-L", "module-null-sink sink_name=stage_out rate=48000"],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while subprocess.run(["pactl", "info"], env=env, capture_output=True).returncode != 0:
            assert server.poll() is None and time.monotonic() < deadline, "pulseaudio did not start"
            time.sleep(0.05)
        subprocess.run(["pactl", "set-default-source", "host_in.monitor"], env=env, check=True)
        subprocess.run(["pactl", "set-default-sink", "stage_out"], env=env, check=True)
        yield env
    finally:
        server.kill()
        server.wait()


def record(env, seconds):
    """`seconds` of the guest's speaker output, mono 48 kHz, as float samples in [-1, 1]."""
    raw = subprocess.run(["timeout", str(seconds), "parec", "-d", "stage_out.monitor", "--rate=48000", "--channels=1",
                          "--format=s16le", "--raw", "--latency-msec=20"], env=env, capture_output=True).stdout
    return np.frombuffer(raw[:len(raw) // 2 * 2], dtype="<i2").astype(np.float64) / 32768


def dominant_frequency(samples):
    spectrum = np.abs(np.fft.rfft(samples * np.hanning(len(samples))))
    return np.fft.rfftfreq(len(samples), 1 / 48000)[np.argmax(spectrum[1:]) + 1]


def test_a_live_host_is_heard_and_seen_by_a_guest(server, client, make_stage, tmp_path, pulse):
    """`ffmpeg … -f yuv4mpegpipe - | stage join --camera - --mic pulse` publishes; a guest with
    `--speaker --view` hears the tone in its sink and shows the host's video in its window."""
    with xvfb(960, 540) as display:
        heard, screen = live_host_and_guest(server, client, make_stage, tmp_path, pulse, display)
    frequency = dominant_frequency(heard)
    rms_db = 20 * np.log10(np.sqrt(np.mean(heard ** 2)) + 1e-12)
    print(f"guest's speaker: dominant {frequency:.1f} Hz, RMS {rms_db:.1f} dBFS over {len(heard) / 48000:.1f} s")
    assert abs(frequency - TONE_HZ) <= 0.02 * TONE_HZ, frequency
    # ffmpeg's sine is at -18 dBFS peak (-21 dBFS RMS); Opus and the mix keep it within a few dB.
    assert -27 < rms_db < -15, rms_db
    # The window: the host's tile shows moving colour bars, its user id in a white-on-black label
    # at the tile's bottom left (screenshot in view.png).
    picture = screen.astype(np.int32)
    print(f"window: luma spread {picture.std():.1f}; screenshot {tmp_path / 'view.png'}")
    assert picture.std() > 30, "the window shows no video"
    label = picture[-22:, :126]   # the label bar of a 10-character name at ×2: 22 × 126 pixels
    white = np.mean(np.all(label > 230, axis=2))
    dark = np.mean(np.all(label < 40, axis=2))
    print(f"label box: {white:.0%} white, {dark:.0%} dark")
    assert white > 0.08 and dark > 0.5, (white, dark)


def live_host_and_guest(server, client, make_stage, tmp_path, pulse, display):
    """Runs the host and the guest; returns 4 s of the guest's speaker and its window's picture."""
    stage = make_stage()
    host = client.create_participant_token(stageArn=stage["arn"], userId="pulse-host")["participantToken"]
    guest = client.create_participant_token(stageArn=stage["arn"], userId="guest")["participantToken"]
    env = dict(pulse, AWS_ACCESS_KEY_ID=ACCESS_KEY, AWS_SECRET_ACCESS_KEY=SECRET_KEY, STAGE_ENDPOINT=server.url)
    tone = subprocess.Popen(["ffmpeg", "-v", "error", "-re", "-f", "lavfi", "-i", f"sine=frequency={TONE_HZ}:sample_rate=48000",
                             "-t", "30", "-ac", "1", "-f", "pulse", "-device", "host_in", "tone"], env=env)
    camera = subprocess.Popen(["ffmpeg", "-v", "error", "-re", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=15", "-t", "30",
                               "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-"], stdout=subprocess.PIPE)
    host_log, guest_log = open(tmp_path / "host.log", "w+"), open(tmp_path / "guest.log", "w+")
    host_cli = subprocess.Popen([str(stage_cli(server)), "join", "--token", host["token"], "--camera", "-", "--mic", "pulse",
                                 "--status-interval", "0"], stdin=camera.stdout, stdout=host_log, stderr=subprocess.STDOUT, env=env)
    guest_cli = None
    try:
        assert wait_published(client, stage["arn"], timeout=20), "the host never published"
        guest_cli = subprocess.Popen([str(stage_cli(server)), "join", "--token", guest["token"], "--camera", "none",
                                      "--mic", "none", "--speaker", "--view", "--status-interval", "2"],
                                     stdin=subprocess.DEVNULL, stdout=guest_log, stderr=subprocess.STDOUT,
                                     env=dict(env, DISPLAY=display))
        time.sleep(3)   # joined, subscribed, decoding
        heard = record(pulse, 4)
        screen = grab(display, (960, 540), png=tmp_path / "view.png")
    finally:
        guest_output = stop_join(guest_cli, guest_log) if guest_cli else ""
        host_output = stop_join(host_cli, host_log)
        for process in (tone, camera):
            process.kill()
            process.wait()
    print(guest_output[-1500:])
    assert len(heard) > 48000 * 3, f"recorded {len(heard)} samples\n{host_output[-1500:]}"
    # The status blocks meter the received audio: the tone's RMS (about -21 dBFS).
    levels = [int(level) for level in re.findall(r"mic-pulse \[audio\].*level \S+ (-?\d+) dBFS", guest_output)]
    assert levels and all(-27 < level < -15 for level in levels[1:]), guest_output[-1500:]
    return heard, screen


def test_stage_devices_lists_the_sound_server_and_the_screen(server, pulse):
    """`stage devices` sees the null sinks and their monitors, and the Xvfb screen with its size;
    a device that is not there is an error naming it at once, not a hang."""
    with xvfb(1024, 576) as display:
        env = dict(pulse, DISPLAY=display)
        listed = subprocess.run([str(stage_cli(server)), "devices", "--json"], capture_output=True, text=True,
                                env=env, timeout=30, check=True)
        devices = json.loads(listed.stdout)
        text = subprocess.run([str(stage_cli(server)), "devices"], capture_output=True, text=True, env=env, timeout=30).stdout
    print(text)
    microphones = {d["name"]: d for d in devices["microphones"]}
    speakers = {d["name"]: d for d in devices["speakers"]}
    assert microphones["host_in.monitor"]["monitor"] and microphones["host_in.monitor"]["default"], devices
    assert speakers["stage_out"]["default"] and speakers["stage_out"]["sampleRate"] == 48000, devices
    assert {"display": display, "width": 1024, "height": 576} in devices["screens"], devices
    assert f"--camera screen:{display}" in text and "--mic pulse:host_in.monitor" in text

    for flag, value, named in [("--mic", "pulse:nosuch", "microphone nosuch"), ("--camera", "/dev/video99", "camera /dev/video99"),
                               ("--speaker-device", "nosuch", "speaker nosuch")]:
        extra = ["--speaker"] if flag == "--speaker-device" else []
        started = time.monotonic()
        done = subprocess.run([str(stage_cli(server)), "join", "--token", "unused", flag, value, *extra],
                              capture_output=True, text=True, env=pulse, timeout=30, stdin=subprocess.DEVNULL)
        elapsed = time.monotonic() - started
        print(f"{flag} {value}: {done.stderr.splitlines()[0] if done.stderr else ''} ({elapsed:.2f} s)")
        assert done.returncode != 0 and named in done.stderr, done.stderr
        assert elapsed < 3, elapsed


def echo_level(server, client, make_stage, tmp_path, pulse, suppress):
    """A publishes a 440 Hz tone and records what it receives of B; B's speaker and microphone
    share one room (the `stage_out` sink and its monitor), so without suppression A hears its
    own tone come back through B. Returns the RMS (dBFS) of A's recording of B, last 3 s."""
    stage = make_stage()
    a = client.create_participant_token(stageArn=stage["arn"], userId="far")["participantToken"]
    b = client.create_participant_token(stageArn=stage["arn"], userId="near")["participantToken"]
    env = dict(pulse, AWS_ACCESS_KEY_ID=ACCESS_KEY, AWS_SECRET_ACCESS_KEY=SECRET_KEY, STAGE_ENDPOINT=server.url)
    record = tmp_path / ("suppressed" if suppress else "open")
    logs = [open(tmp_path / f"{name}-{suppress}.log", "w+") for name in ("far", "near")]
    far = subprocess.Popen([str(stage_cli(server)), "join", "--token", a["token"], "--camera", "none", "--mic", "tone",
                            "--record", str(record), "--status-interval", "0"], stdout=logs[0], stderr=subprocess.STDOUT, env=env)
    near = subprocess.Popen([str(stage_cli(server)), "join", "--token", b["token"], "--camera", "none",
                             "--mic", "pulse:stage_out.monitor", "--speaker", "--speaker-device", "stage_out",
                             "--status-interval", "0", *(["--echo-suppression"] if suppress else [])],
                            stdout=logs[1], stderr=subprocess.STDOUT, env=env)
    try:
        time.sleep(8)
    finally:
        near_output = stop_join(near, logs[1])
        far_output = stop_join(far, logs[0])
    ogg = next(record.glob("near-*.ogg"), None)
    assert ogg is not None, far_output[-1500:] + near_output[-1500:]
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", str(ogg), "-f", "s16le", "-ac", "1", "-ar", "48000", "-"],
                         capture_output=True, check=True).stdout
    samples = np.frombuffer(raw[:len(raw) // 2 * 2], dtype="<i2").astype(np.float64)[-3 * 48000:] / 32768
    assert len(samples) > 48000, f"{len(samples)} samples"
    return 20 * np.log10(np.sqrt(np.mean(samples ** 2)) + 1e-9)


def test_echo_suppression_keeps_the_far_end_from_hearing_itself(server, client, make_stage, tmp_path, pulse):
    open_room = echo_level(server, client, make_stage, tmp_path, pulse, suppress=False)
    suppressed = echo_level(server, client, make_stage, tmp_path, pulse, suppress=True)
    print(f"the far end hears itself back at {open_room:.1f} dBFS without --echo-suppression, {suppressed:.1f} dBFS with it")
    assert open_room > -30, "without suppression the tone should come back"
    assert open_room - suppressed >= 20, (open_room, suppressed)


def test_a_wav_stream_on_a_fifo_and_alsa_are_microphones(server, client, make_stage, tmp_path):
    """`--mic FIFO` publishes a live WAV stream (ffmpeg's sine written there), heard at its
    frequency in the guest's recording; `--mic alsa:null` (ALSA's null device, through ffmpeg)
    publishes too; `--mic alsa:nosuch` is an error naming the device."""
    stage = make_stage()
    host = client.create_participant_token(stageArn=stage["arn"], userId="pipe-host")["participantToken"]
    alsa_host = client.create_participant_token(stageArn=stage["arn"], userId="alsa-host")["participantToken"]
    guest = client.create_participant_token(stageArn=stage["arn"], userId="guest", capabilities=["SUBSCRIBE"])["participantToken"]
    env = dict(os.environ, AWS_ACCESS_KEY_ID=ACCESS_KEY, AWS_SECRET_ACCESS_KEY=SECRET_KEY, STAGE_ENDPOINT=server.url)
    fifo = tmp_path / "mic.wav"
    os.mkfifo(fifo)
    tone = subprocess.Popen(["ffmpeg", "-v", "error", "-re", "-f", "lavfi", "-i", f"sine=frequency={TONE_HZ}:sample_rate=48000",
                             "-t", "30", "-ac", "1", "-c:a", "pcm_s16le", "-f", "wav", "-y", str(fifo)])
    record = tmp_path / "rec"
    logs = [open(tmp_path / f"{n}.log", "w+") for n in ("host", "alsa", "guest")]
    stage_bin = str(stage_cli(server))
    processes = [subprocess.Popen([stage_bin, "join", "--token", host["token"], "--camera", "none", "--mic", str(fifo),
                                   "--status-interval", "0"], stdout=logs[0], stderr=subprocess.STDOUT, env=env,
                                  stdin=subprocess.DEVNULL),
                 subprocess.Popen([stage_bin, "join", "--token", alsa_host["token"], "--camera", "none", "--mic", "alsa:null",
                                   "--status-interval", "0"], stdout=logs[1], stderr=subprocess.STDOUT, env=env,
                                  stdin=subprocess.DEVNULL)]
    try:
        assert wait_published(client, stage["arn"], timeout=20)
        processes.append(subprocess.Popen([stage_bin, "join", "--token", guest["token"], "--strategy", "viewer",
                                           "--record", str(record), "--status-interval", "2"],
                                          stdout=logs[2], stderr=subprocess.STDOUT, env=env, stdin=subprocess.DEVNULL))
        time.sleep(6)
    finally:
        outputs = [stop_join(p, log) for p, log in zip(reversed(processes), reversed(logs[:len(processes)]))]
        tone.kill()
        tone.wait()
    guest_output = outputs[0]
    print(guest_output[-1200:])
    assert "mic-alsa [audio]" in guest_output, guest_output[-2000:]
    ogg = next(record.glob("pipe-host-*.ogg"), None)
    assert ogg is not None, guest_output[-2000:]
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", str(ogg), "-f", "s16le", "-ac", "1", "-ar", "48000", "-"],
                         capture_output=True, check=True).stdout
    samples = np.frombuffer(raw[:len(raw) // 2 * 2], dtype="<i2").astype(np.float64)[-3 * 48000:] / 32768
    frequency = dominant_frequency(samples)
    print(f"the FIFO microphone, as recorded by the guest: {frequency:.1f} Hz over {len(samples) / 48000:.1f} s")
    assert abs(frequency - TONE_HZ) <= 0.02 * TONE_HZ, frequency

    done = subprocess.run([stage_bin, "join", "--token", "unused", "--mic", "alsa:nosuch"], capture_output=True, text=True,
                          env=env, timeout=30, stdin=subprocess.DEVNULL)
    assert done.returncode != 0 and "microphone alsa:nosuch" in done.stderr, done.stderr
