"""fio's phases: jobs after a ``stonewall`` (or with ``wait_for``) start when those before
them have finished, so a file runs in phases, one after another.

:func:`split` cuts a scenario's jobs into phases: a job with ``stonewall`` starts a new
phase after every job listed before it; a job with ``wait_for=NAME`` runs in the phase after
NAME's. Each phase is predicted (or simulated) on its own; :func:`duration` says how long a
phase runs (its jobs' ``runtime`` when time-based, else the time to move their IO (fio's
``io_size`` or ``size``, ``loops`` times, at most ``number_ios`` IOs) at the phase's
bandwidth, capped by ``runtime``), and :func:`combine` weighs the phases' figures by
it into the file's total.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import SchemaError
from .scenario import Scenario

__all__ = ["Phase", "split", "duration", "combine"]


@dataclass(frozen=True)
class Phase:
    """One phase: its number (from 1) and the scenario holding only its jobs."""

    number: int
    scenario: Scenario

    @property
    def jobs(self) -> list[str]:
        return [j.name for j in self.scenario.jobs]


def split(s: Scenario) -> list[Phase]:
    """The scenario's phases in order (one phase when no job waits for another)."""
    phase_of: dict[str, int] = {}
    current = 0
    for i, job in enumerate(s.jobs):
        target = job.fio.options.get("wait_for")
        if job.fio.stonewall and i > 0:
            current = max(phase_of.values(), default=0) + 1
        if target:
            if target not in phase_of:
                raise SchemaError(f"wait_for names {target!r}, which is not a job listed before this one",
                                  file=s.file, field=f"{job.field}.wait_for")
            current = max(current, phase_of[target] + 1)
        phase_of[job.name] = current
    numbers = sorted(set(phase_of.values()))
    return [Phase(k + 1, s.replace_jobs(tuple(j for j in s.jobs if phase_of[j.name] == n)))
            for k, n in enumerate(numbers)]


def duration(phase: Phase, bandwidth: dict[str, float]) -> float | None:
    """Seconds the phase runs: the longest of its jobs (``bandwidth`` per job name, bytes/s).
    A job runs for its ``runtime`` when time-based, else until it has moved its IO per clone
    (:attr:`~iolab.fio.FioJob.io_bytes`: ``io_size``, else ``size`` or ``filesize`` ×
    ``nrfiles``, ``loops`` times, at most ``number_ios`` IOs), at most ``runtime``; None when
    neither is known."""
    longest = None
    for job in phase.scenario.jobs:
        fio = job.fio
        per_clone = fio.io_bytes
        t = None
        if fio.runtime and (fio.time_based or not per_clone):
            t = fio.runtime
        elif per_clone and bandwidth.get(job.name, 0) > 0:
            t = per_clone * fio.numjobs / bandwidth[job.name]
            if fio.runtime:
                t = min(t, fio.runtime)
        if t is None:
            return None
        longest = t if longest is None else max(longest, t)
    return longest


def combine(figures: list[tuple[float, float, float]], durations: list[float | None]) -> tuple[float, float, float]:
    """The file's (IOPS, bandwidth, mean latency) from each phase's, weighed by the phases'
    durations (equal weights when any is unknown)."""
    weights = [d if d is not None else 1.0 for d in durations] if all(d is not None for d in durations) \
        else [1.0] * len(figures)
    total = sum(weights)
    ios = [w * f[0] for w, f in zip(weights, figures)]
    iops = sum(ios) / total
    bandwidth = sum(w * f[1] for w, f in zip(weights, figures)) / total
    latency = sum(n * f[2] for n, f in zip(ios, figures)) / sum(ios) if sum(ios) > 0 else float("inf")
    return iops, bandwidth, latency


def combine_docs(docs: list[dict], durations: list[float | None]) -> dict:
    """A file's JSON from its phases' (``predict`` or ``simulate`` documents): the total,
    ``read`` and ``write`` weighed by duration (:func:`combine`); ``jobs`` from every phase;
    the other keys (bottleneck, resources, ...) from the longest phase; each latency
    percentile is the largest of the phases' (an upper bound of the file's); ``phases`` holds
    each phase's own document with its ``phase`` number and ``phase_duration`` (seconds the
    phase runs in the file; null when unknown)."""
    known = all(d is not None for d in durations)
    weights = [d if known and d is not None else 1.0 for d in durations]
    longest = max(range(len(docs)), key=lambda i: weights[i])
    out = {k: v for k, v in docs[longest].items() if k not in ("read", "write", "jobs", "burst")}

    def figures(key: str | None) -> dict | None:
        parts = [(d.get(key) if key else d) for d in docs]
        if all(p is None for p in parts):
            return None
        figs = [(p["iops"], p["bandwidth"], p["latency"]["mean"] or 0.0) if p else (0.0, 0.0, 0.0) for p in parts]
        iops, bw, lat = combine(figs, durations)
        latency = {"mean": round(lat, 9)}
        for q in ("p50", "p90", "p99", "p99.9", "p99.99", "max"):
            values = [p["latency"][q] for p in parts if p and p["latency"].get(q) is not None]
            if values:
                latency[q] = max(values)
        return {"iops": round(iops, 1), "bandwidth": float(round(bw)), "latency": latency}

    out.update(figures(None) or {})
    for key in ("read", "write"):
        fig = figures(key) if any(key in d for d in docs) else None
        if fig:
            out[key] = fig
    out["jobs"] = [j for d in docs for j in d.get("jobs", [])]
    out["phases"] = [{**d, "phase": i + 1, "phase_duration": durations[i]} for i, d in enumerate(docs)]
    return out
