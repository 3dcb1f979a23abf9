"""The downlink-step scenario as a benchmark: the same run as
test_downlink_adaptation.py (2.5 Mbps → 300 kbps → 2.5 Mbps on the guest's link, adaptive, then
the reference with --no-downlink-adaptation), printed as a timeline and drawn as a PNG: the
guest's link capacity, the bitrate it received, the width of the layer it decoded and its
decoded frames per second, second by second, for both runs; and for the adaptive run the
server's side from /metrics: its downlink estimate (the bucket it falls in) and the layer it
forwards.

    .venv-interop/bin/pip install matplotlib      # once; not needed by the test suite
    sudo .venv-interop/bin/python Tests/interop/bench_downlink_step.py --png docs/plots/downlink-step.png

Needs root (network namespaces), like the test, and the builds the test uses (STAGE_SERVER_BIN
or .build/debug)."""
import argparse
import datetime
import pathlib
import re
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from bench_plot import save_figure  # noqa: E402
from netlab import NetLab  # noqa: E402
from test_downlink_adaptation import NARROW, WIDE, _run  # noqa: E402


def _received_kbps(guest):
    """(wall time, kbps) from the guest's status summaries about the host's video ("… 123 kbps, …")."""
    points = []
    for status in guest.objects():
        if status.get("event") == "status" and status.get("userId") == "host" and status.get("kind") == "video":
            match = re.match(r"(\d+) kbps", status.get("summary", ""))
            if match:
                at = datetime.datetime.fromisoformat(status["time"].replace("Z", "+00:00")).timestamp()
                points.append((at, int(match.group(1))))
    return points


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--png", type=pathlib.Path, required=True, help="where to write the plot")
    args = parser.parse_args()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs, server_timelines = {}, {}
    with tempfile.TemporaryDirectory() as workdir, NetLab() as lab:
        for name, adaptive in (("adaptive", True), ("fixed", False)):
            (pathlib.Path(workdir) / name).mkdir()
            run = _run(lab, pathlib.Path(workdir), name, adaptive)
            runs[name] = (run.samples, run.dropped, run.widened, run.ended, _received_kbps(run.guest))
            server_timelines[name] = run.server_timeline

    figure, axes = plt.subplots(3, 1, figsize=(10, 8), sharex=True)
    for name, style in (("adaptive", "-"), ("fixed", "--")):
        samples, dropped, widened, ended, kbps = runs[name]
        t = [s[0] - dropped for s in samples]
        axes[0].step([k[0] - dropped for k in kbps], [k[1] for k in kbps], style, where="post", label=f"received ({name})")
        axes[1].step(t, [s[1] for s in samples], style, where="post", label=f"decoded width ({name})")
        fps = [(b[2] - a[2]) / max(b[0] - a[0], 0.001) for a, b in zip(samples, samples[1:])]
        axes[2].step(t[1:], fps, style, where="post", label=f"decoded frames/s ({name})")
    # The server's side of the adaptive run, from /metrics once a second: the upper bound of the
    # estimate's bucket, and the layer it forwards drawn at that layer's width.
    dropped = runs["adaptive"][1]
    served = [(t - dropped, layer, bucket) for t, layer, bucket in server_timelines["adaptive"] if bucket not in (None, "+Inf")]
    axes[0].step([p[0] for p in served], [float(p[2]) / 1000 for p in served], "-", color="tab:green", where="post",
                 alpha=0.6, label="server's estimate (bucket bound, adaptive)")
    chosen = [(t - dropped, (320, 640, 1280)[int(layer)]) for t, layer, _ in server_timelines["adaptive"] if layer is not None]
    axes[1].step([p[0] for p in chosen], [p[1] for p in chosen], "-", color="tab:green", where="post", alpha=0.6,
                 label="layer the server forwards (adaptive)")
    samples, dropped, widened, ended, _ = runs["adaptive"]
    start = samples[0][0] - dropped
    capacity_t = [start, 0, 0, widened - dropped, widened - dropped, ended - dropped]
    capacity = [WIDE / 1000, WIDE / 1000, NARROW / 1000, NARROW / 1000, WIDE / 1000, WIDE / 1000]
    axes[0].plot(capacity_t, capacity, ":", color="black", label="link capacity")
    axes[0].set_ylabel("kbps")
    axes[1].set_ylabel("pixels wide")
    axes[2].set_ylabel("frames/s")
    axes[2].set_xlabel("seconds from the drop to 300 kbps")
    for axis in axes:
        axis.axvline(0, color="grey", linewidth=0.8)
        axis.axvline(widened - dropped, color="grey", linewidth=0.8)
        axis.legend(loc="lower right", fontsize=8)
        axis.grid(alpha=0.3)
    figure.suptitle("Guest link 2.5 Mbps → 300 kbps → 2.5 Mbps: stream allocator on (solid) and off (dashed)")
    save_figure(figure, args.png)


if __name__ == "__main__":
    main()
