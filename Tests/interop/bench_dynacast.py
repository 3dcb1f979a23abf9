"""Dynacast as a benchmark: a CLI host publishes 1280×720 at 20 fps in three simulcast layers
while one viewer (aiortc, WHEP) watches the lowest layer (`?layer=q`). The host's CPU time per
second is measured with dynacast (the server tells it to stop encoding h and f) and with
`stage-server --no-dynacast` (it encodes all three, today's reference), alternating, and the
medians compared.

    .venv-interop/bin/python Tests/interop/bench_dynacast.py --rounds 3

Uses the builds the tests use (STAGE_SERVER_BIN or .build/debug); loopback only."""
import argparse
import asyncio
import pathlib
import statistics
import sys
import tempfile
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import boto3  # noqa: E402

from conftest import ACCESS_KEY, REGION, SECRET_KEY, StageServer, server_binary  # noqa: E402
from test_dynacast import _cpu_seconds, _host_status, _layers  # noqa: E402
from test_media_aiortc import peer, post_offer  # noqa: E402
from test_sdk_media_interop import start_join, stop_join, wait_published  # noqa: E402


def _viewer(url, publisher_id, token, stop):
    """An aiortc WHEP viewer on layer q until `stop` is set."""
    async def watch():
        pc = peer()
        pc.addTransceiver("video", direction="recvonly")

        @pc.on("track")
        def on_track(track):
            async def drain():
                while True:
                    try:
                        await track.recv()
                    except Exception:
                        return
            asyncio.ensure_future(drain())

        await post_offer(pc, f"{url}/whep/{publisher_id}?layer=q", token)
        while not stop.is_set():
            await asyncio.sleep(0.2)
        await pc.close()
    asyncio.run(watch())


def run_once(workdir, dynacast, warmup, seconds):
    server = StageServer(server_binary(), workdir, [] if dynacast else ["--no-dynacast"])
    server.start()
    stop = threading.Event()
    process = log = None
    try:
        client = boto3.client("ivs-realtime", endpoint_url=server.url, region_name=REGION,
                              aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY)
        arn = client.create_stage(name="dynacast")["stage"]["arn"]
        host = client.create_participant_token(stageArn=arn, userId="host")["participantToken"]
        viewer = client.create_participant_token(stageArn=arn, userId="viewer", capabilities=["SUBSCRIBE"])["participantToken"]
        process, log = start_join(server, host["token"], workdir, "--size", "1280x720", "--fps", "20", "--mic", "none",
                                  "--json", "--status-interval", "1")
        if not wait_published(client, arn):
            raise RuntimeError("the host never published")
        watcher = threading.Thread(target=_viewer, args=(server.url, host["participantId"], viewer["token"], stop))
        watcher.start()
        time.sleep(warmup)
        cpu, started = _cpu_seconds(process.pid), time.monotonic()
        time.sleep(seconds)
        per_second = (_cpu_seconds(process.pid) - cpu) / (time.monotonic() - started)
        layers = _layers(_host_status(log))
        stop.set()
        watcher.join()
        return per_second, layers
    finally:
        stop.set()
        if process:
            stop_join(process, log)
        server.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warmup", type=float, default=8, help="seconds before measuring (dynacast pauses after 3 s)")
    parser.add_argument("--seconds", type=float, default=10, help="seconds measured")
    args = parser.parse_args()
    results = {True: [], False: []}
    with tempfile.TemporaryDirectory() as directory:
        for round_ in range(args.rounds):
            for dynacast in (True, False):
                workdir = pathlib.Path(directory) / f"{'on' if dynacast else 'off'}-{round_}"
                workdir.mkdir()
                cpu, layers = run_once(workdir, dynacast, args.warmup, args.seconds)
                results[dynacast].append(cpu)
                print(f"round {round_ + 1}, dynacast {'on ' if dynacast else 'off'}: host CPU {cpu:.3f} s/s, "
                      f"encoding {','.join(sorted(layers or []))}", flush=True)
    on, off = statistics.median(results[True]), statistics.median(results[False])
    print(f"median host CPU: {on:.3f} s/s with dynacast, {off:.3f} s/s without ({on / off:.2f}×)")


if __name__ == "__main__":
    main()
