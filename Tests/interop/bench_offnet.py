"""`stage-bench sdk-media` across network namespaces (not a test: a benchmark driver).

The server runs on the lab's public segment, the publisher (`stage join`) in one NAT home and the
benchmark's viewers in another, so every media packet crosses two NAT routers and the bridge:
join → first decoded frame and glass-to-glass latency off the loopback, on the same clock.

    for p in stage-server stage stage-bench; do swift build -c release --product $p; done
    python3 Tests/interop/bench_offnet.py [--trials 3] [--seconds 5] [extra stage-bench options]
"""
import os
import pathlib
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from netlab import NetLab  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]
KEY, SECRET = "AKIDBENCHOFFNET", "bench-offnet-secret"


def main(extra):
    release = REPO / ".build/release"
    for name in ("stage-server", "stage", "stage-bench"):
        if not (release / name).is_file():
            sys.exit(f"{release / name} missing: swift build -c release --product {name}")
    with NetLab() as lab, tempfile.TemporaryDirectory() as work:
        srv = lab.public_host("srv", v6=False)
        publisher_home, viewer_home = lab.nat_home("pub"), lab.nat_home("view")
        for host in (srv, publisher_home, viewer_home):
            lab.set_hosts(host, {"stage.test": [srv.v4]})
        env = dict(os.environ, STAGE_ACCESS_KEY_ID=KEY, STAGE_SECRET_ACCESS_KEY=SECRET)
        server = lab.popen(srv, [str(release / "stage-server"), "--data-dir", f"{work}/data", "--public-url", "http://stage.test:8080",
                                 "--public-ip", srv.v4, "--log-level", "warning"], env=env)
        lab.run(srv, ["sh", "-c", "for i in $(seq 100); do curl -sf -m 1 http://127.0.0.1:8080/healthz && exit 0; sleep 0.1; done; exit 1"],
                timeout=30)
        bench_env = dict(os.environ, AWS_ACCESS_KEY_ID=KEY, AWS_SECRET_ACCESS_KEY=SECRET)
        print(f"server {srv.v4} (namespace {srv.ns}); publisher behind {publisher_home.router_public_v4}; viewers behind "
              f"{viewer_home.router_public_v4}", flush=True)
        done = lab.run(viewer_home, [str(release / "stage-bench"), "sdk-media", "--server-url", "http://stage.test:8080",
                                     "--publisher-netns", publisher_home.ns, *extra], env=bench_env, timeout=600, check=False)
        print(done.stdout, done.stderr, sep="")
        server.terminate()
        server.wait(timeout=10)
        return done.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
