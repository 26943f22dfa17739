"""Figures as inline SVG text (matplotlib, Agg; text drawn as paths so no font is fetched).

Every id inside a figure gets the figure's own prefix (and every reference to it), so that
several figures on one page never share an SVG id.
"""

from __future__ import annotations

import io
import itertools
import re
from collections.abc import Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator

__all__ = ["Point", "latency_curve", "percentiles", "bars", "ratios"]

_COUNTER = itertools.count(1)
_PROLOGUE = re.compile(r"<\?xml.*?\?>|<!DOCTYPE.*?>|<metadata>.*?</metadata>", re.S)
_IDS = re.compile(r'(\bid=")([^"]+)"|((?:xlink:)?href="#)([^"]+)"|(url\(#)([^)]+)\)')


def _own_ids(svg: str, prefix: str) -> str:
    """Prefix every id, and every reference to one, with `prefix`."""
    def sub(m: re.Match[str]) -> str:
        if m.group(1):
            return f'{m.group(1)}{prefix}{m.group(2)}"'
        if m.group(3):
            return f'{m.group(3)}{prefix}{m.group(4)}"'
        return f"{m.group(5)}{prefix}{m.group(6)})"

    return _IDS.sub(sub, svg)


@dataclass(frozen=True)
class Point:
    """One point of a curve: IOPS, mean latency (s) and its label."""

    iops: float
    latency: float
    label: str = ""


@contextmanager
def _figure(width: float = 7.6, height: float = 4.2) -> Iterator[tuple[Any, Any, list[str]]]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out: list[str] = []
    n = next(_COUNTER)
    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": f"iolab-figure-{n}",
                                "font.size": 9}):
        fig, ax = plt.subplots(figsize=(width, height), dpi=100)
        try:
            yield fig, ax, out
            fig.tight_layout()
            buf = io.StringIO()
            fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
            out.append(_own_ids(_PROLOGUE.sub("", buf.getvalue()).strip(), f"f{n}-"))
        finally:
            plt.close(fig)


def latency_curve(measured: Sequence[Point], predicted: Sequence[Point], *, title: str,
                  knee: Point | None = None, predicted_knee: Point | None = None) -> str:
    """Mean latency (ms) against IOPS: measured and predicted curves, knees marked."""
    from ..plot import draw_latency_curve

    knees = []
    if knee is not None:
        knees.append((knee, f"measured knee ({knee.label})", "*", "crimson", 14))
    if predicted_knee is not None:
        knees.append((predicted_knee, f"predicted knee ({predicted_knee.label})", "D", "darkorange", 8))
    with _figure() as (_, ax, out):
        draw_latency_curve(ax, [("measured", measured, True), ("predicted", predicted, False)], title=title,
                           knees=knees)
    return out[0]


def percentiles(series: Mapping[str, Mapping[str, float]], *, title: str) -> str:
    """Latency (ms, log scale) at each percentile, one line per series (a run, a point)."""
    keys = ("p50", "p90", "p99", "p99.9", "p99.99")
    with _figure(height=3.8) as (_, ax, out):
        for name, lat in series.items():
            xs = [k for k in keys if lat.get(k)]
            if xs:
                ax.plot(xs, [lat[k] * 1e3 for k in xs], "o-", label=name, linewidth=1.4, markersize=4)
            if lat.get("mean"):
                ax.axhline(lat["mean"] * 1e3, linestyle=":", linewidth=0.8, alpha=0.6)
        from matplotlib.ticker import FormatStrFormatter, NullFormatter

        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("percentile (dotted: means)")
        ax.set_ylabel("latency (ms)")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
        if len(series) > 1:
            ax.legend(fontsize=7, ncol=2)
    return out[0]


def bars(labels: Sequence[str], values: Sequence[float], *, title: str, xlabel: str,
         limit: float | None = None) -> str:
    """Horizontal bars (one per label), with an optional vertical limit line."""
    height = max(2.2, 0.42 * len(labels) + 1.2)
    with _figure(height=height) as (_, ax, out):
        ax.barh(list(range(len(labels)))[::-1], [float(v) for v in values], color="steelblue")
        ax.set_yticks(list(range(len(labels)))[::-1], labels, fontsize=8)
        if limit is not None:
            ax.axvline(limit, color="crimson", linestyle="--", linewidth=1)
        ax.set_xlabel(xlabel)
        ax.set_title(title)
        ax.grid(True, axis="x", alpha=0.3)
    return out[0]


def ratios(labels: Sequence[str], values: Mapping[str, Sequence[float | None]], *, title: str,
           ylabel: str = "measured / predicted") -> str:
    """A ratio per point (measured / predicted unless `ylabel` says otherwise), one series
    per figure (IOPS, latency); 1 is exact."""
    with _figure(height=3.4) as (_, ax, out):
        xs = list(range(len(labels)))
        for name, ys in values.items():
            pts = [(x, y) for x, y in zip(xs, ys) if y is not None]
            if pts:
                ax.plot([x for x, _ in pts], [y for _, y in pts], "o-", label=name, linewidth=1.2, markersize=4)
        ax.axhline(1.0, color="grey", linewidth=1)
        ax.set_xticks(xs, labels, rotation=30, ha="right", fontsize=7)
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    return out[0]
