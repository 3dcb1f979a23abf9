"""What the bench_*.py scripts share: writing a matplotlib figure as a PNG."""


def save_figure(figure, png):
    """Lays `figure` out, writes it to `png` (its folder made if missing) and says so."""
    figure.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(png, dpi=90)
    print(f"wrote {png}")
