"""Fixtures that run the real stage-server and talk to it like an AWS client would.

Nothing here starts the server at import or collection time: only tests that request
`server` (directly or through `client`, `raw_call`, `make_stage`, ...) pay for it.
"""
import base64
import contextlib
import json
import os
import pathlib
import signal
import socket
import subprocess
import time

import boto3
import pytest
import requests
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials

REPO = pathlib.Path(__file__).resolve().parents[2]
ACCESS_KEY = "AKIDTEST"
SECRET_KEY = "secretTEST"
REGION = "us-east-1"


def _free_port(kind):
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _free_ports(kind, count):
    """The first of `count` consecutive free ports: media worker n serves `--media-port` + n."""
    for _ in range(100):
        first = _free_port(kind)
        if first + count > 65536:
            continue
        sockets = []
        try:
            for port in range(first, first + count):
                s = socket.socket(socket.AF_INET, kind)
                sockets.append(s)
                s.bind(("127.0.0.1", port))
            return first
        except OSError:
            continue
        finally:
            for s in sockets:
                s.close()
    raise RuntimeError(f"no {count} consecutive free ports")


def stop_process(proc, sig=signal.SIGTERM, timeout=10):
    """Asks a child to end with `sig`, then kills it if it has not within `timeout` seconds."""
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(sig)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class StageServer:
    """One stage-server process; `restart()` keeps its ports and data dir."""

    def __init__(self, binary, workdir, extra_args=()):
        self.binary = binary
        self.extra_args = list(extra_args)
        self.data_dir = workdir / "data"
        self.data_dir.mkdir()
        self.log_path = workdir / "server.log"
        self.http_port = _free_port(socket.SOCK_STREAM)
        # One port per media worker: the default is one worker per core.
        self.media_port = _free_ports(socket.SOCK_DGRAM, os.cpu_count() or 1)
        self.url = f"http://127.0.0.1:{self.http_port}"
        self.proc = None

    def start(self):
        env = dict(os.environ, STAGE_ACCESS_KEY_ID=ACCESS_KEY, STAGE_SECRET_ACCESS_KEY=SECRET_KEY)
        args = [str(self.binary), "--http-port", str(self.http_port), "--data-dir", str(self.data_dir),
                "--media-port", str(self.media_port), "--public-url", self.url, *self.extra_args]
        with open(self.log_path, "ab") as log:
            log.write(f"\n=== starting: {' '.join(args)}\n".encode())
            log.flush()
            self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=env)
        self._wait_ready()

    def _wait_ready(self):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                pytest.fail(f"stage-server exited with {self.proc.returncode} before /healthz answered\n"
                            f"{self.log_tail()}", pytrace=False)
            try:
                if requests.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.05)
        self.stop()
        pytest.fail(f"stage-server not ready within 60 s\n{self.log_tail()}", pytrace=False)

    def stop(self):
        stop_process(self.proc)

    def restart(self):
        self.stop()
        self.start()

    def log_tail(self, lines=60):
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "(no server log)"
        return "--- stage-server log tail ---\n" + "\n".join(text.splitlines()[-lines:])


def server_binary():
    binary = pathlib.Path(os.environ.get("STAGE_SERVER_BIN", REPO / ".build/debug/stage-server"))
    if not binary.is_file():
        pytest.fail(f"stage-server binary not found at {binary} (run `swift build` or set STAGE_SERVER_BIN)",
                    pytrace=False)
    return binary


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    srv = StageServer(server_binary(), tmp_path_factory.mktemp("stage-server"))
    try:
        srv.start()
        yield srv
    finally:
        srv.stop()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    report = (yield).get_result()
    srv = getattr(item, "funcargs", {}).get("server")
    if report.failed and isinstance(srv, StageServer):
        report.sections.append(("stage-server log", srv.log_tail()))


@pytest.fixture(scope="session")
def client(server):
    return boto3.client(
        "ivs-realtime", endpoint_url=server.url, region_name=REGION,
        aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY,
        config=Config(retries={"mode": "standard", "total_max_attempts": 2}, connect_timeout=5, read_timeout=30),
    )


@pytest.fixture
def raw_call(server):
    """POST a hand-built (optionally SigV4-signed) request; for what botocore refuses to send."""

    def call(operation, body=None, *, data=None, sign=True, secret=SECRET_KEY):
        payload = data if data is not None else json.dumps(body if body is not None else {}).encode()
        req = AWSRequest(method="POST", url=f"{server.url}/{operation}", data=payload,
                         headers={"Content-Type": "application/json"})
        if sign:
            SigV4Auth(Credentials(ACCESS_KEY, secret), "ivs", REGION).add_auth(req)
        prepared = req.prepare()
        return requests.post(prepared.url, headers=dict(prepared.headers), data=prepared.body, timeout=10)

    return call


@pytest.fixture
def make_stage(client):
    """Create stages for one test and delete whatever is left of them afterwards."""
    created = []

    def make(**kwargs):
        stage = client.create_stage(**kwargs)["stage"]
        created.append(stage["arn"])
        return stage

    yield make
    for arn in created:
        try:
            client.delete_stage(arn=arn)
        except client.exceptions.ResourceNotFoundException:
            pass


def b64url_json(part):
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


@pytest.fixture
def decode_jwt():
    """token -> (header, payload), without verifying the signature."""

    def decode(token):
        parts = token.split(".")
        assert len(parts) == 3, f"not a compact JWT: {token[:40]}..."
        return b64url_json(parts[0]), b64url_json(parts[1])

    return decode


@pytest.fixture
def ws_connect():
    """Open signaling WebSockets (closed at teardown); `websockets` comes from requirements.txt."""
    import websockets.sync.client as sync_client
    with contextlib.ExitStack() as stack:
        yield lambda url: stack.enter_context(sync_client.connect(url, open_timeout=10, close_timeout=2))


def _recv_type(ws, wanted, timeout=10.0):
    deadline = time.monotonic() + timeout
    while True:
        frame = json.loads(ws.recv(timeout=max(0.01, deadline - time.monotonic())))
        if frame.get("type") in (wanted, "error", "disconnect"):
            return frame


@pytest.fixture
def recv_type():
    """(ws, type) -> the next JSON frame of that type; an `error` or `disconnect` frame also ends the wait."""
    return _recv_type


def _eventually(check, timeout=5.0):
    deadline = time.monotonic() + timeout
    while True:
        try:
            return check()
        except AssertionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


@pytest.fixture
def eventually():
    """Retry an asserting callable until it passes (the control plane may lag the socket a little)."""
    return _eventually


@pytest.fixture
def netlab():
    """A fresh NetLab (namespaces, NAT homes, IPv6-only hosts: see netlab.py), removed after the test.

    Needs root and iproute2: without them the test fails with the reason instead of skipping.
    """
    from netlab import NetLab
    with NetLab() as lab:
        yield lab
