"""The bad-link scenarios of issue 12 as a benchmark: a CLI host and a CLI guest, both behind
the link emulator, once with the server's loss repair (NACKs to the host, RTX to the guest) and
once without it (`stage-server --no-loss-repair`, the reference), printed as a timeline and
drawn as a PNG: frames the guest decoded each second, how long its video stood frozen each
second (the WebRTC stats freeze rule), and the share of its audio that was concealed.

Scenarios: `jitter` — 5 % loss and 40 ± 10 ms jitter each way on both legs, 60 s;
`rtt` — 100 ms each way (a 200 ms round trip) and 1 % loss, both legs, 30 s.

    .venv-interop/bin/pip install matplotlib      # once; not needed by the test suite
    sudo .venv-interop/bin/python Tests/interop/bench_bad_links.py --scenario jitter --png docs/plots/jitter.png

Needs root (network namespaces), like the tests, and the builds they use (STAGE_SERVER_BIN
or .build/debug)."""
import argparse
import datetime
import pathlib
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from bench_plot import save_figure  # noqa: E402
from netlab import NetLab  # noqa: E402
from test_jittery_links import BAD_LINK, FPS, sdk_viewer_run  # noqa: E402

SCENARIOS = {
    "jitter": (BAD_LINK, 60, "5 % loss and 40 ± 10 ms jitter each way, host and guest"),
    "rtt": ({"delay_ms": 100, "loss": 0.01}, 30, "200 ms round trip and 1 % loss each way, host and guest"),
}


def _per_second(guest, kind, began, seconds):
    """(seconds from the window's start, status object) of the guest's statuses about the host's `kind`."""
    points = []
    for status in guest.objects():
        if status.get("event") == "status" and status.get("userId") == "host" and status.get("kind") == kind:
            at = datetime.datetime.fromisoformat(status["time"].replace("Z", "+00:00")).timestamp() - began
            if -1 <= at <= seconds + 1:
                points.append((at, status))
    return points


def _rates(points, field, per=None):
    """(t, Δfield / Δt) between consecutive statuses; with `per`, Δfield / Δper instead."""
    out = []
    for (t0, a), (t1, b) in zip(points, points[1:]):
        change = float(b.get(field, 0)) - float(a.get(field, 0))
        if per:
            base = float(b.get(per, 0)) - float(a.get(per, 0))
            out.append((t1, change / base if base > 0 else 0.0))
        else:
            out.append((t1, change / max(t1 - t0, 0.001)))
    return out


def _summary(run):
    v0, v1, a0, a1 = run.video0, run.video1, run.audio0, run.audio1
    delta = lambda a, b, field: float(b.get(field, 0)) - float(a.get(field, 0))
    played = delta(a0, a1, "totalSamplesReceived")
    return (f"{delta(v0, v1, 'framesDecoded'):.0f} frames decoded in {run.seconds:.0f} s "
            f"({delta(v0, v1, 'framesDecoded') / run.seconds:.1f}/s of {FPS}), {delta(v0, v1, 'freezeCount'):.0f} freezes "
            f"({delta(v0, v1, 'totalFreezesDuration'):.2f} s), {delta(v0, v1, 'longFreezeCount'):.0f} of 500 ms or more, "
            f"PLIs {delta(v0, v1, 'pliCount'):.0f}, NACKs {delta(v0, v1, 'nackCount'):.0f}, RTX received "
            f"{delta(v0, v1, 'retransmittedPacketsReceived'):.0f}; audio {delta(a0, a1, 'concealedSamples') / max(played, 1):.1%} "
            f"concealed; lost by the emulator: uplink {run.lost_up}, downlink {run.lost_down}; server: "
            f"{run.repair['nacks_sent']:.0f} sequence numbers NACKed to the host, {run.repair['nacks_answered']:.0f} answered")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", choices=sorted(SCENARIOS), required=True)
    parser.add_argument("--png", type=pathlib.Path, required=True, help="where to write the plot")
    args = parser.parse_args()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    link, seconds, title = SCENARIOS[args.scenario]
    timelines = {}
    with tempfile.TemporaryDirectory() as workdir, NetLab() as lab:
        for name, server_args in (("repaired", []), ("unrepaired", ["--no-loss-repair"])):
            (pathlib.Path(workdir) / name).mkdir()
            run = sdk_viewer_run(lab, pathlib.Path(workdir) / name, seconds, link, server_args, suffix=name[0])
            video, audio = _per_second(run.guest, "video", run.began, run.seconds), _per_second(run.guest, "audio", run.began, run.seconds)
            timelines[name] = (_rates(video, "framesDecoded"), _rates(video, "totalFreezesDuration"),
                               _rates(audio, "concealedSamples", per="totalSamplesReceived"))
            print(f"\n[{name}] {_summary(run)}")

    figure, axes = plt.subplots(3, 1, figsize=(10, 8), sharex=True)
    for name, style in (("repaired", "-"), ("unrepaired", "--")):
        fps, frozen, concealed = timelines[name]
        print(f"[{name}] timeline (s: decoded frames/s, frozen s, audio concealed %): " + " ".join(
            f"{t:.0f}:{f:.0f}/{z:.2f}/{c:.0%}" for (t, f), (_, z), (_, c) in zip(fps, frozen, concealed)))
        axes[0].step([p[0] for p in fps], [p[1] for p in fps], style, where="pre", label=f"decoded frames/s ({name})")
        axes[1].step([p[0] for p in frozen], [p[1] for p in frozen], style, where="pre",
                     label=f"frozen, by the second it ended ({name})")
        axes[2].step([p[0] for p in concealed], [100 * p[1] for p in concealed], style, where="pre",
                     label=f"audio concealed ({name})")
    axes[0].set_ylabel("frames/s")
    axes[0].axhline(FPS, color="black", linestyle=":", linewidth=0.8, label="host's frame rate")
    axes[1].set_ylabel("seconds")
    axes[2].set_ylabel("% of samples")
    axes[2].set_xlabel("seconds")
    for axis in axes:
        axis.legend(loc="best", fontsize=8)
        axis.grid(alpha=0.3)
    figure.suptitle(f"{title}: server loss repair on (solid) and off (dashed)")
    save_figure(figure, args.png)


if __name__ == "__main__":
    main()
