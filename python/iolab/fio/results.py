"""What a fio run measured, in base units: seconds, bytes, bytes/s, IOs/s.

These records are built by :func:`iolab.fio.parse_output` from fio's ``json``/``json+``
output; :meth:`FioResult.total` sums them across jobs and hosts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = ["LatencyStats", "DirectionResult", "JobResult", "ClientResult", "FioTotal", "FioResult",
           "merge_latency", "merge_directions"]

DIRECTIONS = ("read", "write", "trim")


def _frozen(mapping: Mapping | None) -> Mapping | None:
    return None if mapping is None else MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class LatencyStats:
    """A latency distribution in seconds.

    ``percentiles`` maps a percentage (``99.0``) to seconds. ``bins`` (``json+`` output only)
    maps a latency in nanoseconds (fio's bin value) to the number of IOs in that bin.
    ``samples`` is fio's ``N`` (None when the fio version does not report it).
    """

    mean: float
    stddev: float
    min: float
    max: float
    percentiles: Mapping[float, float] = field(default_factory=dict, hash=False)
    bins: Mapping[int, int] | None = field(default=None, hash=False)
    samples: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "percentiles", MappingProxyType(dict(self.percentiles)))
        object.__setattr__(self, "bins", _frozen(self.bins))

    def percentile(self, pct: float) -> float | None:
        """The latency (s) at `pct` percent: from the bins when present, else the nearest
        reported percentile at or above `pct`, else None."""
        if self.bins:
            return _bins_percentile(self.bins, pct)
        above = sorted(p for p in self.percentiles if p >= pct - 1e-9)
        return self.percentiles[above[0]] if above else None


@dataclass(frozen=True)
class DirectionResult:
    """One direction (read, write, trim, or fio's unified ``mixed``) of a job.

    ``iops`` in IOs/s, ``bandwidth`` in bytes/s, ``io_bytes`` bytes, ``runtime`` seconds.
    ``clat`` is completion latency, ``slat`` submission latency, ``lat`` their sum (each None
    when fio did not measure it).
    """

    iops: float
    bandwidth: float
    io_bytes: int
    total_ios: int
    runtime: float
    clat: LatencyStats | None = None
    lat: LatencyStats | None = None
    slat: LatencyStats | None = None

    @property
    def latency(self) -> LatencyStats | None:
        """The latency a user means: ``lat`` (submission + completion) for the mean, min, max
        and stddev, with ``clat``'s percentiles and bins when ``lat`` has none (fio reports
        percentiles for clat unless ``lat_percentiles=1``); ``clat`` when there is no ``lat``."""
        if self.lat is None:
            return self.clat
        if self.lat.percentiles or self.clat is None:
            return self.lat
        return LatencyStats(self.lat.mean, self.lat.stddev, self.lat.min, self.lat.max,
                            self.clat.percentiles, self.clat.bins, self.lat.samples)


@dataclass(frozen=True)
class JobResult:
    """One job (or one reporting group with ``group_reporting``) as fio reported it.

    A direction without IO is None. ``usr_cpu``/``sys_cpu`` in percent of one CPU, ``ctx``
    context switches, ``error`` fio's errno (0 = none), ``elapsed`` seconds of wall time.
    ``hostname``/``port`` are set in client/server output. ``latency_buckets`` maps a bucket's
    upper bound in seconds (``inf`` for the last) to the percent of IOs fio put there
    (``latency_ns``/``latency_us``/``latency_ms``).
    """

    name: str
    hostname: str | None
    read: DirectionResult | None
    write: DirectionResult | None
    trim: DirectionResult | None
    usr_cpu: float
    sys_cpu: float
    ctx: int
    error: int
    elapsed: float
    job_options: Mapping[str, str] = field(default_factory=dict, hash=False)
    mixed: DirectionResult | None = None
    groupid: int = 0
    port: int | None = None
    latency_buckets: Mapping[float, float] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "job_options", MappingProxyType(dict(self.job_options)))
        object.__setattr__(self, "latency_buckets", MappingProxyType(dict(self.latency_buckets)))

    def directions(self) -> dict[str, DirectionResult]:
        """The directions with IO, by name (``read``, ``write``, ``trim``, ``mixed``)."""
        found = {d: getattr(self, d) for d in (*DIRECTIONS, "mixed")}
        return {d: r for d, r in found.items() if r is not None}


@dataclass(frozen=True)
class ClientResult:
    """One host of a client/server run (``fio --client``): its jobs."""

    hostname: str
    port: int | None
    jobs: tuple[JobResult, ...]

    def total(self) -> "FioTotal":
        """This host's totals (see :meth:`FioResult.total`)."""
        return _total(self.jobs)


@dataclass(frozen=True)
class FioTotal:
    """Totals over jobs: per direction summed IOPS, bandwidth, bytes and IOs with merged
    latency; and over all directions, ``iops`` (IOs/s), ``bandwidth`` (bytes/s) and the
    IO-weighted ``latency`` (seconds)."""

    read: DirectionResult | None
    write: DirectionResult | None
    trim: DirectionResult | None
    mixed: DirectionResult | None
    iops: float
    bandwidth: float
    io_bytes: int
    total_ios: int
    latency: LatencyStats | None


@dataclass(frozen=True)
class FioResult:
    """A whole fio run: its jobs (every host's, in client/server output) and disks.

    ``clients`` holds one entry per host in client/server output (empty otherwise);
    ``all_clients`` is fio's own "All clients" aggregate when it printed one.
    ``disk_util`` rows: ``name``, ``read_ios``, ``write_ios``, ``read_merges``,
    ``write_merges``, ``read_time``/``write_time``/``in_queue_time`` (seconds) and ``util``
    (percent of the run the disk was busy), plus ``aggregate_util`` for md/dm devices.
    """

    fio_version: str
    timestamp: int | None
    jobs: tuple[JobResult, ...]
    disk_util: tuple[Mapping[str, object], ...] = ()
    clients: tuple[ClientResult, ...] = ()
    all_clients: JobResult | None = None
    global_options: Mapping[str, str] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "global_options", MappingProxyType(dict(self.global_options)))

    @property
    def hostnames(self) -> tuple[str, ...]:
        """The hosts of a client/server run, in output order."""
        return tuple(c.hostname for c in self.clients)

    def total(self) -> FioTotal:
        """Sum the jobs (of every host): IOPS, bandwidth, bytes and IOs add up; the mean
        latency is IO-weighted; percentiles are merged exactly from the bins when every job
        has them (``json+``), and otherwise are the largest value any job reported (an upper
        bound, exact for one job)."""
        return _total(self.jobs)


def _total(jobs: Sequence[JobResult]) -> FioTotal:
    per = {d: merge_directions([getattr(j, d) for j in jobs if getattr(j, d) is not None])
           for d in (*DIRECTIONS, "mixed")}
    parts = [per[d] for d in DIRECTIONS if per[d] is not None]
    if not parts and per["mixed"] is not None:
        parts = [per["mixed"]]
    latency = merge_latency([(p.latency, p.total_ios) for p in parts if p.latency is not None])
    return FioTotal(
        read=per["read"], write=per["write"], trim=per["trim"], mixed=per["mixed"],
        iops=sum(p.iops for p in parts), bandwidth=sum(p.bandwidth for p in parts),
        io_bytes=sum(p.io_bytes for p in parts), total_ios=sum(p.total_ios for p in parts),
        latency=latency,
    )


def merge_directions(parts: Sequence[DirectionResult]) -> DirectionResult | None:
    """Sum one direction over jobs running side by side (None for no parts)."""
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]

    def merged(attr: str) -> LatencyStats | None:
        stats = [(getattr(p, attr), p.total_ios) for p in parts]
        if any(s is None for s, _ in stats):
            return None
        return merge_latency(stats)  # type: ignore[arg-type]

    return DirectionResult(
        iops=sum(p.iops for p in parts), bandwidth=sum(p.bandwidth for p in parts),
        io_bytes=sum(p.io_bytes for p in parts), total_ios=sum(p.total_ios for p in parts),
        runtime=max(p.runtime for p in parts), clat=merged("clat"), lat=merged("lat"), slat=merged("slat"),
    )


def merge_latency(parts: Sequence[tuple[LatencyStats, int]]) -> LatencyStats | None:
    """Merge distributions weighted by IO count: exact mean, pooled stddev, min, max;
    percentiles from summed bins when all have bins, else the maximum per percentile."""
    parts = [(s, w) for s, w in parts if s is not None]
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0][0]
    counted = sum(w for _, w in parts) > 0
    ws = [(s, w if counted else 1) for s, w in parts]  # equal weights when no IO counts
    weight = sum(w for _, w in ws)
    mean = sum(s.mean * w for s, w in ws) / weight
    second = sum((s.stddev**2 + s.mean**2) * w for s, w in ws) / weight
    stddev = math.sqrt(max(0.0, second - mean**2))
    if all(s.bins for s, _ in parts):
        bins: dict[int, int] = {}
        for s, _ in parts:
            for value, count in s.bins.items():  # type: ignore[union-attr]
                bins[value] = bins.get(value, 0) + count
        keys = set().union(*(s.percentiles for s, _ in parts))
        pcts = {p: _bins_percentile(bins, p) for p in sorted(keys)}
        merged_bins: dict[int, int] | None = bins
    else:
        keys = set.intersection(*(set(s.percentiles) for s, _ in parts))
        pcts = {p: max(s.percentiles[p] for s, _ in parts) for p in sorted(keys)}
        merged_bins = None
    samples = sum(s.samples for s, _ in parts) if all(s.samples is not None for s, _ in parts) else None
    return LatencyStats(mean, stddev, min(s.min for s, _ in parts), max(s.max for s, _ in parts),
                        pcts, merged_bins, samples)


def _bins_percentile(bins: Mapping[int, int], pct: float) -> float:
    """The smallest bin value (s) whose cumulative count reaches `pct` percent of all IOs."""
    total = sum(bins.values())
    need = pct / 100.0 * total
    running = 0
    for value in sorted(bins):
        running += bins[value]
        if running >= need - 1e-9 and running > 0:
            return value / 1e9
    return max(bins) / 1e9
