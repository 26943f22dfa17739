"""What a calibration fits to: stored bench runs, each with the jobs exactly as fio ran
them and the figures it measured."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..bench.compare import scenario_as_run
from ..bench.jobs import override
from ..bench.record import RunRecord
from ..errors import InputError
from ..fio import FioJob, parse_jobfile

__all__ = ["Observation", "observations", "jobs_of"]


@dataclass(frozen=True)
class Observation:
    """One stored run: its id, sweep point, the jobs as they ran and the measured JSON
    (``iops``, ``bandwidth``, ``latency``, ``read``/``write``)."""

    run_id: int
    params: Mapping[str, Any]
    jobs: tuple[FioJob, ...]
    measured: Mapping[str, Any]
    record: RunRecord

    @property
    def label(self) -> str:
        point = ", ".join(f"{k}={v}" for k, v in self.params.items())
        return f"run {self.run_id}" + (f" ({point})" if point else "")


def jobs_of(record: RunRecord, scenario: Any) -> tuple[FioJob, ...]:
    """The jobs as this run ran them: the stored job file's (each with its own rw, mix, bs,
    iodepth, numjobs, rate, ...; :func:`iolab.bench.compare.scenario_as_run` puts them on
    the scenario's path), else — a run stored without its job file — the scenario's jobs
    with the run's sweep point set."""
    try:
        ran = tuple(parse_jobfile(record.jobfile, source=f"run {record.run_id}")) if record.jobfile.strip() else ()
    except InputError:
        ran = ()
    if ran:
        return ran
    return override([sj.fio for sj in scenario.jobs], record.params)


def observations(records: Sequence[RunRecord], scenario: Any) -> tuple[list[Observation], list[str]]:
    """The usable runs (finished ``ok`` with figures) and a note for each one left out."""
    usable: list[Observation] = []
    notes: list[str] = []
    for r in records:
        if r.status != "ok" or r.measured is None or r.measured.total.iops <= 0:
            notes.append(f"run {r.run_id} left out: {r.status}" + (f" ({r.error})" if r.error else ""))
            continue
        if r.scenario and Path(r.scenario).name != Path(scenario.file).name:
            notes.append(f"run {r.run_id} was measured with scenario {r.scenario}, not {scenario.file}: "
                         "its jobs are taken as that run ran them")
        jobs = jobs_of(r, scenario)
        try:
            scenario_as_run(scenario, jobs)
        except InputError as e:
            notes.append(f"run {r.run_id} left out: {e.message}")
            continue
        usable.append(Observation(int(r.run_id or 0), dict(r.params), jobs, r.measured.to_json(), r))
    return usable, notes
