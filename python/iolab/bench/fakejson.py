"""fio-shaped JSON for tests and demos: what fio 3.x's ``json+`` output says about jobs
whose figures are given, so :class:`~iolab.bench.executor.FakeRun` can stand in for fio.

Every IO of a direction takes exactly the given latency (one histogram bin).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["FakeJob", "fio_json"]

_PCTS = ("1.000000", "5.000000", "10.000000", "50.000000", "90.000000", "99.000000", "99.900000",
         "99.990000")


@dataclass(frozen=True)
class FakeJob:
    """One job as fio would report it: IOPS (ops/s) and latency (s) per direction, the block
    size (bytes), runtime (s), errno, and the host in client/server output."""

    name: str
    read_iops: float = 0.0
    write_iops: float = 0.0
    latency: float = 0.001
    bs: int = 4096
    runtime: float = 1.0
    error: int = 0
    hostname: str | None = None


def _direction(iops: float, latency: float, bs: int, runtime: float) -> dict:
    ios = int(round(iops * runtime))
    ns = int(round(latency * 1e9))
    stats = {"min": ns, "max": ns, "mean": float(ns), "stddev": 0.0, "N": ios}
    lat = dict(stats, percentile={p: ns for p in _PCTS}, bins={str(ns): ios} if ios else {})
    return {
        "io_bytes": ios * bs, "io_kbytes": ios * bs // 1024, "bw_bytes": int(iops * bs), "bw": int(iops * bs / 1024),
        "iops": iops, "runtime": int(runtime * 1000), "total_ios": ios, "short_ios": 0, "drop_ios": 0,
        "slat_ns": {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0},
        "clat_ns": dict(lat), "lat_ns": dict(lat),
    }


def _job(job: FakeJob) -> dict:
    doc = {
        "jobname": job.name, "groupid": 0, "error": job.error, "eta": 0, "elapsed": int(job.runtime) + 1,
        "job options": {"name": job.name},
        "read": _direction(job.read_iops, job.latency, job.bs, job.runtime),
        "write": _direction(job.write_iops, job.latency, job.bs, job.runtime),
        "trim": _direction(0.0, job.latency, job.bs, job.runtime),
        "job_runtime": int(job.runtime * 1000), "usr_cpu": 1.0, "sys_cpu": 2.0, "ctx": 10, "majf": 0, "minf": 0,
    }
    if job.hostname is not None:
        doc["hostname"] = job.hostname
        doc["port"] = 8765
    return doc


def fio_json(jobs: Sequence[FakeJob], *, version: str = "fio-3.33") -> str:
    """The ``json+`` document fio would print for `jobs` (``client_stats`` when they have a
    hostname, as in client/server output)."""
    doc: dict = {"fio version": version, "timestamp": 1700000000, "time": "Tue Nov 14 22:13:20 2023"}
    if any(j.hostname for j in jobs):
        doc["global options"] = {}
        doc["client_stats"] = [_job(j) for j in jobs]
    else:
        doc["jobs"] = [_job(j) for j in jobs]
    doc["disk_util"] = []
    return json.dumps(doc, indent=2)
