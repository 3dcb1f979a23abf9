"""Mouth-to-ear delay through two `stage join` CLIs on loopback (not a test: a benchmark driver).

One PulseAudio server of our own with a single null sink, `room`. The host's microphone is the
room's monitor (`--mic pulse:room.monitor`); the guest's speaker plays into the room
(`--speaker --speaker-device room`) at 70 % volume (PulseAudio volumes are cubic: -9 dB). A short 2 kHz beep played into the room
every 1.5 s is heard by the host, crosses the stage, comes out of the guest's speaker into the
room, is heard by the host again, and so on, 9 dB weaker each round. One recording of the
room's monitor holds the beep and its first echo on one clock: the lag between them is the
whole mouth-to-ear path (capture buffer, Opus, RTP over the server, jitter buffer, mixer,
playback buffer). Reference in the same run: PulseAudio's own module-loopback from the monitor
back into the room (latency_msec=60, about the buffers `stage` asks for), i.e. the sound server
alone, without the network path.

    for p in stage-server stage; do swift build -c release --product $p; done
    .venv-interop/bin/python Tests/interop/bench_mouth_to_ear.py [--beeps 12]
"""
import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from composition import clients  # noqa: E402
from conftest import ACCESS_KEY, SECRET_KEY, StageServer, stop_process  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]
RATE = 48000
PERIOD = 1.5
BEEP = 0.03


def start_pulse(work):
    runtime = work / "pulse"
    runtime.mkdir()
    env = dict(os.environ, PULSE_RUNTIME_PATH=str(runtime), HOME=str(runtime), PULSE_SERVER=f"unix:{runtime}/native")
    env.pop("DISPLAY", None)
    server = subprocess.Popen(["pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no",
                               "--log-level=error", "-L", f"module-native-protocol-unix socket={runtime}/native auth-anonymous=1",
                               "-L", f"module-null-sink sink_name=room rate={RATE}"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while subprocess.run(["pactl", "info"], env=env, capture_output=True).returncode != 0:
        if time.monotonic() > deadline:
            sys.exit("pulseaudio did not start")
        time.sleep(0.05)
    return server, env


def beep_and_record(env, beeps):
    """Plays `beeps` beeps into the room while recording its monitor; returns the samples."""
    seconds = beeps * PERIOD + 1
    recorder = subprocess.Popen(["parec", "-d", "room.monitor", f"--rate={RATE}", "--channels=1", "--format=s16le",
                                 "--raw", "--latency-msec=10"], env=env, stdout=subprocess.PIPE)
    time.sleep(0.3)
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i",
                    f"aevalsrc='0.5*sin(2*PI*2000*t)*lt(mod(t,{PERIOD}),{BEEP})':s={RATE}:d={seconds}",
                    "-f", "pulse", "-device", "room", "beeps"], env=env, check=True)
    time.sleep(0.5)
    recorder.terminate()
    raw = recorder.communicate()[0]
    return np.frombuffer(raw[:len(raw) // 2 * 2], dtype="<i2").astype(np.float64) / 32768


def echo_delays(samples):
    """For every beep, the lag (ms) from its onset to the onset of its first echo. The first
    loud onset is the first beep; the others follow every PERIOD. In each period, the echo's
    onset is where the envelope, after the beep, first reaches half the loudest it gets there."""
    window = int(0.002 * RATE)
    envelope = np.convolve(np.abs(samples), np.ones(window) / window, mode="same")
    loud = np.flatnonzero(envelope > 0.3 * np.percentile(envelope, 99.9))
    if len(loud) == 0:
        return []
    delays, period = [], int(PERIOD * RATE)
    first = loud[0]
    for direct_guess in range(first, len(samples) - period, period):
        near = envelope[max(0, direct_guess - int(0.05 * RATE)):direct_guess + int(0.05 * RATE)]
        direct = max(0, direct_guess - int(0.05 * RATE)) + int(np.argmax(near > 0.5 * near.max()))
        after = direct + int((BEEP + 0.01) * RATE)
        region = envelope[after:direct + int(0.8 * RATE)]
        if region.max() < 0.02 * near.max():
            continue
        echo = after + int(np.argmax(region > 0.5 * region.max()))
        delays.append((echo - direct) / RATE * 1000)
    return delays


def measure(label, env, beeps, setup):
    delays = []
    for _ in range(2):   # a recording that caught nothing (a stream still starting) is taken again
        with setup():
            time.sleep(1.0)
            delays = echo_delays(beep_and_record(env, beeps))
        if delays:
            break
    if not delays:
        print(f"{label}: no echo found")
        return None
    median = statistics.median(delays)
    print(f"{label}: mouth-to-ear median {median:.0f} ms, min {min(delays):.0f}, max {max(delays):.0f} "
          f"over {len(delays)} beeps")
    return median


class Stage:
    """The host and the guest `stage join` on a release server; the guest's speaker at 70 % (-9 dB)."""

    def __init__(self, work, env, binaries):
        self.work, self.env, self.binaries = work, env, binaries

    def __enter__(self):
        self.server = StageServer(self.binaries / "stage-server", self.work)
        self.server.start()
        _, realtime = clients(self.server)
        arn = realtime.create_stage(name="mouth-to-ear")["stage"]["arn"]
        host = realtime.create_participant_token(stageArn=arn, userId="host")["participantToken"]
        guest = realtime.create_participant_token(stageArn=arn, userId="guest")["participantToken"]
        env = dict(self.env, AWS_ACCESS_KEY_ID=ACCESS_KEY, AWS_SECRET_ACCESS_KEY=SECRET_KEY, STAGE_ENDPOINT=self.server.url)
        stage = str(self.binaries / "stage")
        self.clis = [subprocess.Popen([stage, "join", "--token", host["token"], "--camera", "none", "--mic", "pulse:room.monitor",
                                       "--status-interval", "0"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT),
                     subprocess.Popen([stage, "join", "--token", guest["token"], "--camera", "none", "--mic", "none",
                                       "--speaker", "--speaker-device", "room", "--status-interval", "0"], env=env,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)]
        deadline = time.monotonic() + 20
        while True:
            inputs = subprocess.run(["pactl", "list", "short", "sink-inputs"], env=self.env, capture_output=True,
                                    text=True).stdout.split("\n")
            if inputs and inputs[0]:
                break
            if time.monotonic() > deadline:
                sys.exit("the guest's speaker never opened")
            time.sleep(0.1)
        index = inputs[0].split("\t")[0]
        subprocess.run(["pactl", "set-sink-input-volume", index, "70%"], env=self.env, check=True)
        time.sleep(2)   # joined, subscribed, the audio flowing
        return self

    def __exit__(self, *exc):
        for cli in self.clis:
            stop_process(cli)
        self.server.stop()


class Loopback:
    """PulseAudio's module-loopback from the room's monitor back into the room, at 70 % (-9 dB)."""

    def __init__(self, env):
        self.env = env

    def __enter__(self):
        self.module = subprocess.run(["pactl", "load-module", "module-loopback", "source=room.monitor", "sink=room",
                                      "latency_msec=60", "source_dont_move=true", "sink_dont_move=true"],
                                     env=self.env, capture_output=True, text=True, check=True).stdout.strip()
        time.sleep(0.5)
        inputs = subprocess.run(["pactl", "list", "short", "sink-inputs"], env=self.env, capture_output=True, text=True).stdout
        for line in inputs.splitlines():
            subprocess.run(["pactl", "set-sink-input-volume", line.split("\t")[0], "70%"], env=self.env, check=True)
        return self

    def __exit__(self, *exc):
        subprocess.run(["pactl", "unload-module", self.module], env=self.env, check=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--beeps", type=int, default=12)
    parser.add_argument("--build", default="release", help="release or debug")
    args = parser.parse_args()
    binaries = REPO / ".build" / args.build
    for name in ("stage-server", "stage"):
        if not (binaries / name).is_file():
            sys.exit(f"{binaries / name} missing: swift build -c {args.build} --product {name}")
    with tempfile.TemporaryDirectory() as work:
        work = pathlib.Path(work)
        pulse, env = start_pulse(work)
        try:
            reference = measure("reference (pulseaudio module-loopback, latency_msec=60)", env, args.beeps,
                                lambda: Loopback(env))
            ours = measure("stage join → stage-server → stage join --speaker", env, args.beeps,
                           lambda: Stage(work, env, binaries))
            if reference and ours:
                print(f"added by the stage path: {ours - reference:.0f} ms")
        finally:
            pulse.kill()
            pulse.wait()


if __name__ == "__main__":
    main()
