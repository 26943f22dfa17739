"""Charts: latency against IOPS (the curve whose knee users look for), written as PNG or SVG.

matplotlib runs with the non-interactive Agg backend; nothing opens a window.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .errors import RunError, SchemaError

__all__ = ["CurvePoint", "check_plot_path", "latency_curve"]

FORMATS = (".png", ".svg")


@dataclass(frozen=True)
class CurvePoint:
    label: str          # e.g. "iodepth=4"
    iops: float
    latency: float      # seconds


def check_plot_path(path: str | Path, option: str = "--plot") -> Path:
    """Refuse a plot path with an unknown suffix or a missing directory (before any work)."""
    p = Path(path)
    if p.suffix.lower() not in FORMATS:
        raise SchemaError(f"a plot is written as .png or .svg, not {p.suffix or 'no suffix'!r}", field=option)
    if not p.parent.exists():
        raise SchemaError(f"directory {str(p.parent)!r} does not exist", field=option)
    return p


def latency_curve(path: str | Path, series: Sequence[tuple[str, Sequence[CurvePoint]]], *,
                  title: str, knee: CurvePoint | None = None, knee_label: str = "knee") -> Path:
    """Draw latency (ms) against IOPS for one or more named series; mark the knee."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    p = check_plot_path(path)
    fig, ax = plt.subplots(figsize=(7.5, 4.8), dpi=110)
    try:
        for i, (name, points) in enumerate(series):
            xs = [pt.iops for pt in points]
            ys = [pt.latency * 1e3 for pt in points]
            style = "o-" if i == 0 else "s--"
            ax.plot(xs, ys, style, label=name, linewidth=1.6, markersize=4)
            for pt in points:
                ax.annotate(pt.label, (pt.iops, pt.latency * 1e3), textcoords="offset points", xytext=(4, 4),
                            fontsize=7, alpha=0.7)
        if knee is not None:
            ax.axvline(knee.iops, color="grey", linestyle=":", linewidth=1)
            ax.plot([knee.iops], [knee.latency * 1e3], "*", color="crimson", markersize=14,
                    label=f"{knee_label}: {knee.label}")
        ax.set_xlabel("IOPS")
        ax.set_ylabel("mean latency (ms)")
        ax.set_title(title)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper left", fontsize=8)
        fig.tight_layout()
        fig.savefig(p)
    except OSError as e:
        raise RunError(f"cannot write plot {str(p)!r}: {e.strerror or e}") from None
    finally:
        plt.close(fig)
    return p
