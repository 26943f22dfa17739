"""What characterize leaves behind: files written whole or not at all, the time-series
plot, and the characterization stored in the results database like a run."""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

from ..errors import RunError
from .profile import Profile, point_key

__all__ = ["atomic_path", "write_text", "timeseries_plot", "store_profile"]


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path beside ``path`` (same suffix); renamed over it only if the block ends
    without an error, removed otherwise — a reader never sees half a file."""
    target = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=target.suffix, dir=target.parent or ".")
    except OSError as e:
        raise RunError(f"cannot write {path}: {e.strerror or e}") from None
    os.close(fd)
    try:
        yield Path(tmp)
        os.replace(tmp, target)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise RunError(f"cannot write {path}: {e.strerror or e}") from None
        raise


def write_text(path: str | Path, text: str) -> None:
    try:
        with atomic_path(path) as tmp:
            tmp.write_text(text)
    except OSError as e:
        raise RunError(f"cannot write {path}: {e.strerror or e}") from None


def timeseries_plot(path: str | Path, p: Profile, title: str) -> None:
    """IOPS, bandwidth and latency of the combined series over time, with the sizing
    percentile drawn and the busy windows shaded (PNG or SVG by the suffix)."""
    from ..plot import canvas

    s = p.series
    t0 = s[0].time - s[0].interval if s else 0.0
    xs = [(x.time - t0) / 60 for x in s]
    key = point_key(p.percentile)
    with atomic_path(path) as tmp, canvas(tmp, 3, 8.4) as (_, axes):
        ax = axes[0]
        ax.plot(xs, [x.r_iops for x in s], label="read", linewidth=1)
        ax.plot(xs, [x.w_iops for x in s], label="write", linewidth=1)
        ax.plot(xs, [x.iops for x in s], label="total", linewidth=1.4, color="black")
        ax.axhline(p.combined["total"]["iops"][key], color="crimson", linestyle="--", linewidth=1,
                   label=f"P{p.percentile:g}")
        ax.set_ylabel("IOPS")
        ax.set_title(title)
        ax.legend(fontsize=7, loc="upper right")
        ax = axes[1]
        ax.plot(xs, [x.r_bw / 1e6 for x in s], label="read", linewidth=1)
        ax.plot(xs, [x.w_bw / 1e6 for x in s], label="write", linewidth=1)
        ax.axhline(p.combined["total"]["bandwidth"][key] / 1e6, color="crimson", linestyle="--", linewidth=1,
                   label=f"P{p.percentile:g} total")
        ax.set_ylabel("MB/s")
        ax.legend(fontsize=7, loc="upper right")
        ax = axes[2]
        ax.plot(xs, [None if x.r_lat is None else x.r_lat * 1e3 for x in s], label="read", linewidth=1)
        ax.plot(xs, [None if x.w_lat is None else x.w_lat * 1e3 for x in s], label="write", linewidth=1)
        ax.set_ylabel("latency (ms)")
        ax.set_xlabel("minutes from the first sample")
        ax.legend(fontsize=7, loc="upper right")
        for a in axes:
            a.grid(True, alpha=0.3)
            for w in p.busy:
                a.axvspan((w["start"] - t0) / 60, (w["end"] - t0) / 60, color="orange", alpha=0.15)


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, timezone.utc).isoformat(timespec="seconds")


def store_profile(p: Profile, requirements_text: str, db: str | Path | None) -> int:
    """Save the characterization as a run (params.kind = "characterize"); returns its id.

    Its figures are the sizing percentile of the combined load before the comfort factor;
    its latency keys are percentiles of the per-interval mean latency."""
    from ..bench.record import Figures, Measured, RunRecord
    from ..bench.store import ResultsStore

    key = point_key(p.percentile)
    c = p.combined

    def fig(block: dict, lat: dict | None) -> Figures:
        latency = {} if not lat else {"mean": lat["mean"], "p50": lat["p50"], "p90": lat["p90"], "p99": lat["p99"]}
        return Figures(block["iops"][key], block["bandwidth"][key], latency)

    lats = [c[d]["latency"] for d in ("read", "write") if c[d]["latency"]]
    total_lat = max(lats, key=lambda l: l["mean"]) if lats else None
    measured = Measured(fig(c["total"], total_lat), fig(c["read"], c["read"]["latency"]),
                        fig(c["write"], c["write"]["latency"]))
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    first = p.series[0].time - p.series[0].interval
    started, ended = (_iso(first), _iso(p.series[-1].time)) if p.trace.absolute else (now, now)
    record = RunRecord(
        status="ok", started=started, ended=ended, jobfile=requirements_text, fio_argv=(),
        target="characterize: " + ", ".join(s["file"] for s in p.trace.sources), measured=measured,
        params={"kind": "characterize", "percentile": p.percentile, "comfort": p.comfort})
    with ResultsStore(db) as store:
        return store.save(record)
