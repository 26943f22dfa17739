"""The record of one benchmark run: what ran, where, and the figures it measured.

All figures are in base units: ``iops`` in ops/s, ``bandwidth`` in bytes/s, latencies in
seconds. ``latency`` holds ``mean`` and, where fio reported them, ``p50``, ``p90``,
``p99``, ``p99.9`` and ``p99.99`` (the keys ``iolab simulate`` uses).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = ["LATENCY_KEYS", "Figures", "Measured", "JobMeasure", "HostMeasure", "RunRecord", "STATUSES"]

#: latency keys in the order they are shown; all but ``mean`` are percentiles.
LATENCY_KEYS = ("mean", "p50", "p90", "p99", "p99.9", "p99.99")

#: what became of a run.
STATUSES = ("ok", "failed", "interrupted")


@dataclass(frozen=True)
class Figures:
    """IOPS (ops/s), bandwidth (bytes/s) and latency (seconds, by :data:`LATENCY_KEYS`)."""

    iops: float
    bandwidth: float
    latency: Mapping[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"iops": self.iops, "bandwidth": self.bandwidth,
                "latency": {k: self.latency[k] for k in LATENCY_KEYS if k in self.latency}}


@dataclass(frozen=True)
class Measured:
    """Figures of one scope (a run, a host or a job): the total and each direction with IO."""

    total: Figures
    read: Figures | None = None
    write: Figures | None = None

    def to_json(self) -> dict[str, Any]:
        doc = self.total.to_json()
        for name in ("read", "write"):
            part = getattr(self, name)
            if part is not None:
                doc[name] = part.to_json()
        return doc

    def directions(self) -> dict[str, Figures]:
        """``total`` and each direction present, by name."""
        out = {"total": self.total}
        if self.read is not None:
            out["read"] = self.read
        if self.write is not None:
            out["write"] = self.write
        return out


@dataclass(frozen=True)
class JobMeasure:
    """One job's figures (all its clones together); ``host`` is set in multi-host runs."""

    name: str
    measured: Measured
    host: str | None = None

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"name": self.name}
        if self.host is not None:
            doc["host"] = self.host
        doc.update(self.measured.to_json())
        return doc


@dataclass(frozen=True)
class HostMeasure:
    """One host of a multi-host run: its figures, or why it has none (``status`` failed)."""

    host: str
    status: str = "ok"
    measured: Measured | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"host": self.host, "status": self.status}
        if self.measured is not None:
            doc.update(self.measured.to_json())
        if self.error:
            doc["error"] = self.error
        return doc


@dataclass(frozen=True)
class RunRecord:
    """Everything stored about one run.

    ``started``/``ended`` are ISO 8601 UTC times; ``jobfile`` the exact job file fio ran;
    ``fio_argv`` its command line; ``host``/``kernel`` where iolab ran; ``target``,
    ``fstype`` and ``mount_options`` describe the target (from /proc/self/mounts; for
    remote hosts the target path alone); ``params`` the sweep point (e.g. ``{"iodepth": 4}``);
    ``predicted`` the prediction's JSON when a scenario described the target.
    """

    status: str
    started: str
    ended: str
    jobfile: str
    fio_argv: tuple[str, ...] = ()
    fio_version: str | None = None
    host: str | None = None
    kernel: str | None = None
    target: str | None = None
    fstype: str | None = None
    mount_options: str | None = None
    measured: Measured | None = None
    jobs: tuple[JobMeasure, ...] = ()
    hosts: tuple[HostMeasure, ...] = ()
    params: Mapping[str, Any] = field(default_factory=dict)
    predicted: Mapping[str, Any] | None = None
    scenario: str | None = None
    error: str | None = None
    sweep_id: int | None = None
    run_id: int | None = None

    def with_id(self, run_id: int) -> RunRecord:
        return replace(self, run_id=run_id)

    def to_json(self) -> dict[str, Any]:
        """The bench JSON of docs/bench.md (measured figures, ``jobs``, ``run_id``, ...)."""
        doc: dict[str, Any] = {"run_id": self.run_id, "status": self.status}
        if self.measured is not None:
            doc.update(self.measured.to_json())
        doc["jobs"] = [j.to_json() for j in self.jobs]
        if self.hosts:
            doc["hosts"] = [h.to_json() for h in self.hosts]
        if self.params:
            doc["params"] = dict(self.params)
        if self.predicted is not None:
            doc["predicted"] = dict(self.predicted)
        doc.update({
            "started": self.started, "ended": self.ended, "fio_version": self.fio_version,
            "host": self.host, "kernel": self.kernel, "target": self.target,
            "fstype": self.fstype, "mount_options": self.mount_options,
            "sweep_id": self.sweep_id,
        })
        if self.error:
            doc["error"] = self.error
        return doc
