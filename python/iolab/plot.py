"""Charts: latency against IOPS (the curve whose knee users look for), written as PNG or SVG.

matplotlib runs with the non-interactive Agg backend; nothing opens a window.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .errors import RunError, SchemaError
from .outputs import check_place

__all__ = ["CurvePoint", "canvas", "check_plot_path", "draw_latency_curve", "latency_curve", "simulation_charts"]

FORMATS = (".png", ".svg")


@dataclass(frozen=True)
class CurvePoint:
    label: str          # e.g. "iodepth=4"
    iops: float
    latency: float      # seconds


def check_plot_path(path: str | Path, option: str = "--plot") -> Path:
    """Refuse a plot path with an unknown suffix, a missing directory or that is a directory
    (before any work)."""
    p = Path(path)
    if p.suffix.lower() not in FORMATS:
        raise SchemaError(f"a plot is written as .png or .svg, not {p.suffix or 'no suffix'!r}", field=option)
    check_place(p, option=option)
    return p


@contextmanager
def canvas(path: str | Path, rows: int = 1, height: float = 4.8) -> Iterator[tuple[object, list]]:
    """A matplotlib figure (Agg backend) of ``rows`` stacked axes, saved to ``path`` on exit."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    p = check_plot_path(path)
    fig, axes = plt.subplots(rows, 1, figsize=(7.5, height), dpi=110, squeeze=False)
    try:
        yield fig, [a[0] for a in axes]
        fig.tight_layout()
        fig.savefig(p)
    except OSError as e:
        raise RunError(f"cannot write plot {str(p)!r}: {e.strerror or e}") from None
    finally:
        plt.close(fig)


def latency_curve(path: str | Path, series: Sequence[tuple[str, Sequence[CurvePoint]]], *,
                  title: str, knee: CurvePoint | None = None, knee_label: str = "knee") -> Path:
    """Draw latency (ms) against IOPS for one or more named series; mark the knee."""
    with canvas(path) as (_, (ax,)):
        draw_latency_curve(ax, [(name, points, True) for name, points in series], title=title,
                           knees=[(knee, f"{knee_label}: {knee.label}", "*", "crimson", 14)] if knee else [])
    return Path(path)


def draw_latency_curve(ax, series, *, title: str, knees=()) -> None:
    """Mean latency (ms) against IOPS on the matplotlib axes `ax`, the one chart the CLI's
    ``--plot`` and the HTML report share. `series`: ``(name, points, labelled)``, each point
    with ``iops``, ``latency`` (s) and ``label`` (written beside it when `labelled`); the
    first series is drawn solid, the others dashed. `knees`: ``(point, legend, marker,
    colour, size)``, each marked with a dotted vertical line at its IOPS."""
    for i, (name, points, labelled) in enumerate(series):
        if not points:
            continue
        ax.plot([pt.iops for pt in points], [pt.latency * 1e3 for pt in points], "o-" if i == 0 else "s--",
                label=name, linewidth=1.6, markersize=4)
        for pt in points if labelled else ():
            if pt.label:
                ax.annotate(pt.label, (pt.iops, pt.latency * 1e3), textcoords="offset points", xytext=(4, 4),
                            fontsize=7, alpha=0.7)
    for pt, legend, marker, colour, size in knees:
        ax.axvline(pt.iops, color="grey", linestyle=":", linewidth=1)
        ax.plot([pt.iops], [pt.latency * 1e3], marker, color=colour, markersize=size, label=legend)
    ax.set_xlabel("IOPS")
    ax.set_ylabel("mean latency (ms)")
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)


def simulation_charts(path: str | Path, *, title: str, percentiles: Sequence[tuple[str, float]],
                      series: Sequence[tuple[float, float]],
                      credits: Sequence[tuple[str, Sequence[tuple[float, float]]]] = ()) -> Path:
    """Latency percentiles (ms, bars), IOPS over time, and credit balances when bursting."""
    rows = 3 if credits else 2
    with canvas(path, rows, 2.8 * rows) as (_, axes):
        ax = axes[0]
        ax.bar([name for name, _ in percentiles], [v * 1e3 for _, v in percentiles], color="steelblue")
        ax.set_ylabel("latency (ms)")
        ax.set_title(title)
        ax.grid(True, axis="y", alpha=0.3)
        ax = axes[1]
        ax.plot([t for t, _ in series], [x for _, x in series], "-", linewidth=1.2)
        ax.set_xlabel("simulated time (s)")
        ax.set_ylabel("IOPS")
        ax.grid(True, alpha=0.3)
        if credits:
            ax = axes[2]
            for name, pts in credits:
                ax.plot([t for t, _ in pts], [c for _, c in pts], "-", label=name)
            ax.set_xlabel("simulated time (s)")
            ax.set_ylabel("credit balance (ops)")
            ax.legend(fontsize=7)
            ax.grid(True, alpha=0.3)
    return Path(path)
