"""fio's results (:class:`iolab.fio.FioResult`) into the figures a run record keeps.

Per job: all clones of a job (``numjobs``) together, IOPS and bandwidth summed, latency
merged by IO count (percentiles exactly, from ``json+`` bins). Latency is fio's total
latency (submission + completion); iolab runs fio with ``lat_percentiles=1`` so its
percentiles are of that latency too.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..fio import FioResult, JobResult, LatencyStats
from .record import Figures, JobMeasure, Measured

__all__ = ["PERCENTILES", "figures", "measure", "measure_jobs", "combine"]

#: the percentiles kept, as (key, percent).
PERCENTILES = (("p50", 50.0), ("p90", 90.0), ("p99", 99.0), ("p99.9", 99.9), ("p99.99", 99.99))


def figures(iops: float, bandwidth: float, latency: LatencyStats | None) -> Figures:
    """Figures from fio's numbers: ops/s, bytes/s and a latency distribution in seconds."""
    lat: dict[str, float] = {}
    if latency is not None:
        lat["mean"] = latency.mean
        for key, pct in PERCENTILES:
            value = latency.percentile(pct)
            if value is not None:
                lat[key] = value
    return Figures(iops, bandwidth, lat)


def measure(jobs: Sequence[JobResult]) -> Measured:
    """The figures of `jobs` running side by side: total, read and write."""
    total = FioResult(fio_version="", timestamp=None, jobs=tuple(jobs)).total()
    parts = {}
    for name in ("read", "write"):
        d = getattr(total, name)
        if d is not None:
            parts[name] = figures(d.iops, d.bandwidth, d.latency)
    return Measured(figures(total.iops, total.bandwidth, total.latency), parts.get("read"), parts.get("write"))


def measure_jobs(result: FioResult, host: str | None = None) -> tuple[JobMeasure, ...]:
    """One entry per job name, in the order fio reported them (clones merged)."""
    groups: dict[str, list[JobResult]] = {}
    for job in result.jobs:
        groups.setdefault(job.name, []).append(job)
    return tuple(JobMeasure(name, measure(js), host) for name, js in groups.items())


def combine(results: Sequence[FioResult]) -> Measured:
    """Figures of several fio runs at once (the hosts of a multi-host run): sums and merges."""
    return measure([j for r in results for j in r.jobs])
