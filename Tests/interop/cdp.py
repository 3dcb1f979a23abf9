"""Headless Chromium driven over the DevTools protocol: open a page, evaluate JavaScript,
take a screenshot. Only the handful of CDP calls the tests need, over `websockets`' sync client."""
import base64
import contextlib
import itertools
import json
import socket
import subprocess
import time

import requests
from websockets.sync.client import connect

from test_media_chromium_simulcast import CHROMIUM_FLAGS


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Browser:
    """One headless Chromium showing `url`, stopped by `close()` (and at most after `lifetime` s)."""

    def __init__(self, url, workdir, lifetime=120, size=(1280, 800)):
        self.port = _free_port()
        self.log = open(workdir / "chromium.log", "wb")
        self.process = subprocess.Popen(
            ["timeout", str(lifetime), "chromium", *CHROMIUM_FLAGS, f"--user-data-dir={workdir / 'chromium-profile'}",
             f"--remote-debugging-port={self.port}", f"--window-size={size[0]},{size[1]}", url],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.ids = itertools.count(1)
        deadline = time.monotonic() + 30
        target = None
        while time.monotonic() < deadline and target is None:
            try:
                pages = requests.get(f"http://127.0.0.1:{self.port}/json", timeout=1).json()
                target = next((p for p in pages if p.get("type") == "page"), None)
            except (requests.RequestException, ValueError):
                time.sleep(0.2)
        assert target, "Chromium's DevTools endpoint did not come up"
        self.stack = contextlib.ExitStack()
        self.socket = self.stack.enter_context(connect(target["webSocketDebuggerUrl"], max_size=64 << 20, open_timeout=10))

    def call(self, method, **params):
        call_id = next(self.ids)
        self.socket.send(json.dumps({"id": call_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv(timeout=30))
            if message.get("id") == call_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        return result.get("result", {}).get("value")

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self):
        try:
            self.stack.close()
        except Exception:
            pass
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()
