"""The many-subscribers scenario as a benchmark: the run of test_many_subscribers.py with 20
guests (by default), links of 200 kbps and 3 Mbps in turn, then every link narrowed to 200 kbps;
once with the server's stream allocator and once without it (--no-downlink-adaptation, every
guest on the top layer: the reference). Printed as a summary and drawn as a PNG: the width each
guest decoded, second by second, in both runs; the frames a second the narrow-link and the
wide-link guests decoded; and the layers the host encoded (dynacast).

    .venv-interop/bin/pip install matplotlib      # once; not needed by the test suite
    sudo .venv-interop/bin/python Tests/interop/bench_many_subscribers.py --png docs/plots/many-subscribers.png

Needs root (network namespaces), like the test, and the builds the test uses (STAGE_SERVER_BIN
or .build/debug)."""
import argparse
import datetime
import pathlib
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from bench_plot import save_figure  # noqa: E402
from netlab import NetLab  # noqa: E402
from offnet import counter_samples  # noqa: E402
from test_dynacast import _layers  # noqa: E402
from test_many_subscribers import CAPS, _layer_timeline, frame_rate, run  # noqa: E402

RIDS = ("q", "h", "f")


def _host_layers(host):
    """(wall time, set of rids) of the host's status objects about its own video."""
    points = []
    for status in host.objects():
        if status.get("event") == "status" and status.get("isLocal") == "true" and status.get("kind") == "video":
            at = datetime.datetime.fromisoformat(status["time"].replace("Z", "+00:00")).timestamp()
            points.append((at, _layers(status) or set()))
    return points


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--png", type=pathlib.Path, required=True, help="where to write the plot")
    parser.add_argument("--subscribers", type=int, default=20, help="guests on the stage (default 20)")
    parser.add_argument("--keep-logs", type=pathlib.Path, help="an empty folder to keep the server's and participants' logs in")
    args = parser.parse_args()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # The participants' logs are read after both runs: the work directory outlives them.
    if args.keep_logs:
        args.keep_logs.mkdir(parents=True, exist_ok=True)
        workdir = pathlib.Path(tempfile.mkdtemp(dir=args.keep_logs))
    else:
        temporary = tempfile.TemporaryDirectory()
        workdir = pathlib.Path(temporary.name)
    runs = {}
    for name, server_args in (("adaptive", ()), ("reference", ("--no-downlink-adaptation",))):
        (workdir / name).mkdir()
        with NetLab() as lab:
            runs[name] = run(lab, workdir / name, args.subscribers, server_args,
                             wait_for_q_alone=name == "adaptive")

    narrow = [index % len(CAPS) == 0 for index in range(args.subscribers)]
    for name, result in runs.items():
        mixed = (result.joined, result.narrowed)
        frames = [counter_samples(g, "host", "framesDecoded") for g in result.guests]
        narrow_rates = [round(frame_rate(f, *mixed), 1) for f, n in zip(frames, narrow) if n]
        wide_rates = [round(frame_rate(f, *mixed), 1) for f, n in zip(frames, narrow) if not n]
        host_layers = _host_layers(result.host)
        print(f"[{name}] {args.subscribers} guests, caps {[c for c, _ in CAPS]} bps in turn: widths at the end of the mixed "
              f"phase {result.widths}; frames a second per guest while mixed: narrow links {narrow_rates}, wide links {wide_rates}; "
              f"host encoded {_layer_timeline(result.layers_mixed, result.narrowed)} ({result.cpu_mixed:.2f} CPU s/s); every link narrowed: "
              f"widths {result.narrowed_widths}, host {sorted(host_layers[-1][1]) if host_layers else None} "
              f"({result.cpu_narrow:.2f} CPU s/s)")

    figure, axes = plt.subplots(4, 1, figsize=(10, 11), sharex=True)
    for row, name in enumerate(("adaptive", "reference")):
        result = runs[name]
        for index, guest in enumerate(result.guests):
            widths = counter_samples(guest, "host", "frameWidth")
            color = "tab:orange" if narrow[index] else "tab:blue"
            # Each guest a few pixels above the last, so twenty lines on three widths stay apart.
            axes[row].step([t - result.narrowed for t, _ in widths], [w + 8 * index for _, w in widths], "-",
                           color=color, where="post", linewidth=0.8, alpha=0.8)
        axes[row].plot([], [], color="tab:orange", label=f"guests on {CAPS[0][0] // 1000} kbps, then {CAPS[0][0] // 1000} kbps")
        axes[row].plot([], [], color="tab:blue", label=f"guests on {CAPS[1][0] // 1_000_000} Mbps, then {CAPS[0][0] // 1000} kbps")
        axes[row].set_ylabel("decoded width (px; guest n\nis drawn 8n px higher)")
        axes[row].set_title(f"{'stream allocator on' if name == 'adaptive' else 'reference: no downlink adaptation'}", fontsize=10)
    for name, style in (("adaptive", "-"), ("reference", "--")):
        result = runs[name]
        start = result.joined
        for cls, color in ((True, "tab:orange"), (False, "tab:blue")):
            frames = [counter_samples(g, "host", "framesDecoded") for g, n in zip(result.guests, narrow) if n == cls]
            per_second = [sum(frame_rate(f, start + second, start + second + 1) for f in frames) / len(frames)
                          for second in range(int(result.ended - start))]
            axes[2].step([start + s - result.narrowed for s in range(len(per_second))], per_second, style, color=color,
                         where="post", label=f"{'narrow' if cls else 'wide'}-link guests ({name})")
        layers = _host_layers(result.host)
        for rid_index, rid in enumerate(RIDS):
            points = [t - result.narrowed for t, active in layers if rid in active]
            offset = 0 if name == "adaptive" else 0.2
            axes[3].plot(points, [rid_index + offset] * len(points), "|" if name == "adaptive" else "x",
                         color="tab:green" if name == "adaptive" else "tab:grey", markersize=6)
    axes[2].set_ylabel("frames/s per guest")
    axes[3].plot([], [], "|", color="tab:green", label="encoded (adaptive)")
    axes[3].plot([], [], "x", color="tab:grey", label="encoded (reference)")
    axes[3].set_yticks(range(len(RIDS)), [f"{rid} ({w} px)" for rid, w in zip(RIDS, (320, 640, 1280))])
    axes[3].set_ylim(-0.5, len(RIDS) - 0.3)
    axes[3].set_ylabel("host's layers")
    axes[3].set_xlabel(f"seconds from every link narrowing to {CAPS[0][0] // 1000} kbps")
    for axis in axes:
        axis.axvline(0, color="grey", linewidth=0.8)
        axis.legend(loc="lower left", fontsize=8)
        axis.grid(alpha=0.3)
    figure.suptitle(f"{args.subscribers} guests on one stage, links of {CAPS[0][0] // 1000} kbps and "
                    f"{CAPS[1][0] // 1_000_000} Mbps in turn, then all {CAPS[0][0] // 1000} kbps")
    save_figure(figure, args.png)
    if args.keep_logs:
        print(f"logs kept in {workdir}")


if __name__ == "__main__":
    main()
