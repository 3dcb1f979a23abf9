"""The uplink-step scenario as a benchmark: the same runs as test_uplink_feedback.py's Chromium
test (a WHIP publisher's uplink 2.5 Mbps → 300 kbps → 2.5 Mbps, first with transport-cc, then
without it, held by the server's REMB alone), drawn as a PNG: what Chromium sent each second
and its estimate of its uplink (`availableOutgoingBitrate`), against the link's capacity.

    .venv-interop/bin/pip install matplotlib      # once; not needed by the test suite
    sudo .venv-interop/bin/python Tests/interop/bench_uplink_step.py --png docs/plots/uplink-step.png

Needs root (network namespaces), like the test, and the builds the test uses (STAGE_SERVER_BIN
or .build/debug)."""
import argparse
import pathlib
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from bench_plot import save_figure  # noqa: E402
from netlab import NetLab  # noqa: E402
from test_uplink_feedback import NARROW, NARROW_SECONDS, RECOVERY_SECONDS, WIDE, WIDE_SECONDS, _run  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--png", type=pathlib.Path, required=True, help="where to write the plot")
    args = parser.parse_args()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = {}
    with tempfile.TemporaryDirectory() as workdir, NetLab() as lab:
        for name, transport_cc in (("transport-cc", True), ("remb-only", False)):
            rows, _, _, narrow_for, dropped = _run(lab, pathlib.Path(workdir), name, transport_cc)
            runs[name] = (rows, narrow_for, dropped)

    figure, axes = plt.subplots(2, 1, figsize=(10, 7), sharex=True, sharey=True)
    for axis, (name, (rows, narrow_for, dropped)) in zip(axes, runs.items()):
        t = [r[0] for r in rows]
        axis.step(t, [r[1] / 1000 for r in rows], "-", where="pre", label="Chromium sent (kbps)")
        axis.step(t, [r[2] / 1000 if r[2] else float("nan") for r in rows], "--", where="pre", label="Chromium's estimate (kbps)")
        capacity_t = [-WIDE_SECONDS, 0, 0, narrow_for, narrow_for, narrow_for + RECOVERY_SECONDS]
        capacity = [WIDE / 1000, WIDE / 1000, NARROW / 1000, NARROW / 1000, WIDE / 1000, WIDE / 1000]
        axis.plot(capacity_t, capacity, ":", color="black", label="uplink capacity")
        axis.set_title(f"{name}: {dropped} packets dropped at the uplink's queue", fontsize=10)
        axis.set_ylabel("kbps")
        axis.set_yscale("log")
        axis.legend(loc="lower right", fontsize=8)
        axis.grid(alpha=0.3)
    axes[-1].set_xlabel(f"seconds from the drop to {NARROW // 1000} kbps (widened after {NARROW_SECONDS} s)")
    figure.suptitle("Chromium WHIP publisher, uplink 2.5 Mbps → 300 kbps → 2.5 Mbps: transport-cc (top), REMB only (bottom)")
    save_figure(figure, args.png)


if __name__ == "__main__":
    main()
