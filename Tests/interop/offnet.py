"""A stage server and `stage` CLI participants inside a NetLab (netlab.py): the pieces the
off-loopback tests share.

The server runs in a namespace on the lab's public segment with the public URL
http://stage.test:8080; every namespace resolves `stage.test` through its own hosts file (IPv4
or IPv6, as that namespace can reach). The control plane is driven with the `stage` CLI inside
the server's namespace; participants are `stage join` processes in their own namespaces, with
`--json` events and `status` objects (which include the candidate pair in use).
"""
import datetime
import json
import os
import pathlib
import signal
import subprocess
import time

import pytest

from conftest import ACCESS_KEY, REGION, REPO, SECRET_KEY, stop_process

HTTP_PORT = 8080
MEDIA_PORT = 7880
MEDIA_TCP_PORT = 7881


def binaries():
    server = pathlib.Path(os.environ.get("STAGE_SERVER_BIN", REPO / ".build/debug/stage-server"))
    cli = pathlib.Path(os.environ.get("STAGE_CLI_BIN", server.resolve().parent / "stage"))
    for path in (server, cli):
        if not path.is_file():
            pytest.fail(f"{path} not found: run `swift build` or set STAGE_SERVER_BIN", pytrace=False)
    return server, cli


def cli_env(endpoint="http://127.0.0.1:8080"):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "STAGE_"))}
    env.update(AWS_ACCESS_KEY_ID=ACCESS_KEY, AWS_SECRET_ACCESS_KEY=SECRET_KEY, AWS_DEFAULT_REGION=REGION,
               STAGE_ENDPOINT=endpoint)
    return env


class LabServer:
    """stage-server in namespace `host` of `lab`."""

    def __init__(self, lab, host, workdir, extra_args=()):
        self.lab, self.host, self.workdir = lab, host, workdir
        self.server_bin, self.cli_bin = binaries()
        self.log_path = workdir / "server.log"
        self.extra_args = list(extra_args)
        self.proc = None

    def start(self):
        env = dict(os.environ, STAGE_ACCESS_KEY_ID=ACCESS_KEY, STAGE_SECRET_ACCESS_KEY=SECRET_KEY)
        args = [str(self.server_bin), "--http-port", str(HTTP_PORT), "--media-port", str(MEDIA_PORT),
                "--data-dir", str(self.workdir / "data"), "--public-url", f"http://stage.test:{HTTP_PORT}",
                "--log-level", "notice", *self.extra_args]
        self.log = open(self.log_path, "ab")
        self.proc = self.lab.popen(self.host, args, stdout=self.log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                pytest.fail(f"stage-server exited with {self.proc.returncode}\n{self.log_tail()}", pytrace=False)
            probe = self.lab.run(self.host, ["curl", "-sf", "-m", "1", f"http://127.0.0.1:{HTTP_PORT}/healthz"], check=False)
            if probe.returncode == 0:
                return self
            time.sleep(0.1)
        pytest.fail(f"stage-server not ready within 60 s\n{self.log_tail()}", pytrace=False)

    def stop(self):
        stop_process(self.proc)

    def log_tail(self, chars=3000):
        return self.log_path.read_text(errors="replace")[-chars:] if self.log_path.exists() else ""

    def control(self, *args):
        """A `stage` control-plane command inside the server's namespace; its --json answer."""
        done = self.lab.run(self.host, [str(self.cli_bin), *args, "--json"], check=False, env=cli_env(), timeout=60)
        assert done.returncode == 0, f"stage {' '.join(args)}: {done.stderr}"
        return json.loads(done.stdout)

    def create_stage(self, name):
        return self.control("create-stage", "--name", name)["arn"]

    def token(self, stage_arn, user, *capabilities):
        args = ["token", "--stage-arn", stage_arn, "--user-id", user]
        for capability in capabilities:
            args += ["--capability", capability]
        return self.control(*args)


class Participant:
    """`stage join --json` in a lab namespace; events and status objects parsed from its output."""

    def __init__(self, lab, host, workdir, name, token, *args, cli=None):
        self.name, self.workdir = name, workdir
        self.log_path = workdir / f"join-{name}.log"
        self.log = open(self.log_path, "w+")
        cli = cli or binaries()[1]
        self.proc = lab.popen(host, [str(cli), "join", "--token", token, "--json", *args],
                              stdout=self.log, stderr=subprocess.STDOUT, env=cli_env())

    def lines(self):
        self.log.flush()
        return self.log_path.read_text(errors="replace").splitlines()

    def objects(self):
        parsed = []
        for line in self.lines():
            if line.startswith("{"):
                try:
                    parsed.append(json.loads(line))
                except json.JSONDecodeError:
                    pass
        return parsed

    def events(self):
        return [o for o in self.objects() if o.get("event") != "status"]

    def paths(self):
        """The candidate pair of each status object that has one, latest last."""
        return [o["path"] for o in self.objects() if o.get("event") == "status" and o.get("path")]

    def wait_for(self, predicate, timeout, what):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate(self):
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        pytest.fail(f"{self.name}: {what} not seen within {timeout} s\n{self.tail()}", pytrace=False)

    def tail(self, chars=3000):
        return "\n".join(self.lines())[-chars:]

    def leave(self):
        stop_process(self.proc, signal.SIGINT, timeout=15)
        return self.tail()


def recorded_frames(ivf):
    """The VP8 frames in a recording, counted by ffprobe."""
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                          "stream=codec_name,nb_read_frames", "-of", "json", str(ivf)], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    stream = json.loads(out)["streams"][0]
    assert stream["codec_name"] == "vp8", stream
    return int(stream["nb_read_frames"])


def counter_samples(participant, user, field):
    """(wall time, counter) of the video status objects about `user` that carry `field`."""
    samples = []
    for status in participant.objects():
        if status.get("event") == "status" and status.get("userId") == user and status.get("kind") == "video" and field in status:
            at = datetime.datetime.fromisoformat(status["time"].replace("Z", "+00:00")).timestamp()
            samples.append((at, int(status[field])))
    return samples


def _at(samples, t):
    """The counter at time t, linear between the samples around it."""
    for (t0, v0), (t1, v1) in zip(samples, samples[1:]):
        if t0 <= t <= t1:
            return v0 + (v1 - v0) * (t - t0) / (t1 - t0) if t1 > t0 else v1
    raise ValueError(f"{t} outside the samples")


def longest_decode_stall(participant, user):
    """The longest wall-clock time between status objects (one a second) in which `user`'s
    decoded-frame count went up: how long no new frame arrived, at 1 s resolution."""
    samples = counter_samples(participant, user, "framesDecoded")
    increases = [t for (t, n), (_, before) in zip(samples[1:], samples) if n > before]
    assert len(increases) > 3, f"too few status objects with new decoded frames: {samples}"
    return max(b - a for a, b in zip(increases, increases[1:]))


def largest_media_gap(ivf):
    """The largest step between consecutive frame timestamps of a recording, in seconds of media time."""
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts", "-of", "json", str(ivf)],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    pts = sorted(int(p["pts"]) for p in json.loads(out)["packets"])
    return max((b - a) / 90000 for a, b in zip(pts, pts[1:]))


def delivery(host, guest, user="host"):
    """Of the frames the host encoded while the guest was receiving, the share the guest decoded:
    both counters come from their status objects (one a second, same clock), compared over the
    window both cover, from the guest's first decoded frame on. Returns (decoded, encoded)."""
    encoded = counter_samples(host, user, "framesEncoded")
    decoded = [s for s in counter_samples(guest, user, "framesDecoded") if s[1] > 0]
    assert len(encoded) >= 3 and len(decoded) >= 3, f"too few status samples: host {encoded}, guest {decoded}"
    start, end = max(decoded[0][0], encoded[0][0]), min(decoded[-1][0], encoded[-1][0])
    assert end - start >= 3, f"the host and guest status samples overlap only {end - start:.1f} s"
    return _at(decoded, end) - _at(decoded, start), _at(encoded, end) - _at(encoded, start)


class LabTURN:
    """Debian's coturn in namespace `host` (long-term credentials alice:secret), on port 3478
    over UDP and TCP, relaying on the host's public address."""

    USER, PASSWORD, REALM = "alice", "secret", "proscenium.test"

    def __init__(self, lab, host, workdir):
        self.lab, self.host = lab, host
        self.log_path = workdir / "coturn.log"
        self.url_udp = f"turn:{host.v4}:3478"
        self.url_tcp = f"turn:{host.v4}:3478?transport=tcp"
        self.proc = None

    def start(self):
        self.log = open(self.log_path, "wb")
        self.proc = self.lab.popen(self.host, [
            "/usr/bin/turnserver", "-n", f"--listening-ip={self.host.v4}", f"--relay-ip={self.host.v4}", "--listening-port=3478",
            "--lt-cred-mech", f"--user={self.USER}:{self.PASSWORD}", f"--realm={self.REALM}", "--no-tls", "--no-dtls", "--no-cli",
            "--min-port=49152", "--max-port=49252", "--log-file=stdout", "--simple-log", "--no-stun-backward-compatibility",
            "--pidfile=/dev/null"], stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                pytest.fail(f"coturn exited with {self.proc.returncode}\n{self.log_path.read_text(errors='replace')[-2000:]}", pytrace=False)
            probe = self.lab.run(self.host, ["python3", "-c", f"import socket; socket.create_connection(('{self.host.v4}', 3478), 1)"], check=False)
            if probe.returncode == 0:
                return self
            time.sleep(0.1)
        pytest.fail("coturn not listening within 10 s", pytrace=False)

    def stop(self):
        stop_process(self.proc, signal.SIGKILL)   # coturn holds nothing worth a clean exit

    def args(self, url):
        return ["--ice-server", url, "--ice-username", self.USER, "--ice-credential", self.PASSWORD]
