"""The prediction beside the measurement, when a scenario describes the target.

:func:`predicted` asks the analytic engine (:func:`iolab.prediction.predict`) about the
scenario with the jobs as they actually ran (after ``--iodepth`` and friends, at a sweep
point); :func:`rows` lines up measured and predicted figures with their ratio
(measured / predicted).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from msgspec.structs import replace

from ..errors import RuleViolation
from ..fio import FioJob

__all__ = ["scenario_as_run", "predicted", "check_clients", "Row", "rows", "predicted_figure", "figure_at"]


def scenario_as_run(scenario: Any, jobs: Sequence[FioJob]) -> Any:
    """The scenario with the jobs a run ran in place of its own — each with everything fio
    was told (rw, mix, bs/bssplit, iodepth, numjobs, direct, ioengine, rate, size, runtime),
    so that a measurement is predicted as it ran. A run job targets the volume of the
    scenario job of its name, else the one volume the scenario's jobs target.

    Raises InputError naming the job when a run job has no scenario job of its name and the
    scenario's jobs target several volumes (no way to tell which it ran on)."""
    from ..errors import InputError
    from ..scenario import ScenarioJob

    by_name = {sj.name: sj for sj in scenario.jobs}
    volumes = list(dict.fromkeys(sj.volume for sj in scenario.jobs)) or list(scenario.volumes)
    out = []
    for job in jobs:
        own = by_name.get(job.name)
        if own is not None:
            out.append(replace(own, fio=job))
            continue
        if len(volumes) != 1:
            raise InputError(f"the run's job {job.name!r} is none of the scenario's jobs "
                             f"({', '.join(by_name)}), and they run on {len(volumes)} volumes: name the run's jobs "
                             "as the scenario's", file=scenario.file, field="jobs")
        out.append(ScenarioJob(job.name, volumes[0], job, f"run job {job.name}"))
    return scenario.replace_jobs(tuple(out))


def predicted(scenario: Any, jobs: Sequence[FioJob]) -> dict[str, Any]:
    """The predict JSON (docs/predict.md) of `scenario` as the run of `jobs` ran it
    (:func:`scenario_as_run`), every phase counted. Raises what prediction raises for a
    scenario it cannot model."""
    from ..prediction import predict_json

    return predict_json(scenario_as_run(scenario, jobs))


def check_clients(scenario: Any, hosts: int, *, remote: bool) -> None:
    """A scenario's ``clients.count`` must equal the hosts the run uses: the ``--client``
    hosts when `remote`, else this one machine.

    Raises RuleViolation (exit 2) naming both numbers.
    """
    count = scenario.clients.count
    if count != hosts:
        ran = f"{hosts} --client host{'s' if hosts != 1 else ''}" if remote else "this machine alone"
        raise RuleViolation(
            "clients-match-hosts",
            f"the scenario's clients.count is {count} but the run uses {ran}: give one --client per "
            "scenario client, or change clients.count",
            file=scenario.file, field="clients.count")


@dataclass(frozen=True)
class Row:
    """One figure: where (``total``, ``read``, ``write``, or a job's name), what (``iops``,
    ``bandwidth``, ``latency.mean``), measured and predicted values and their ratio."""

    scope: str
    figure: str
    measured: float | None
    predicted: float | None

    @property
    def ratio(self) -> float | None:
        if self.measured is None or not self.predicted:
            return None
        return self.measured / self.predicted


_FIGURES = (("iops", ("iops",)), ("bandwidth", ("bandwidth",)), ("latency.mean", ("latency", "mean")))


def figure_at(doc: Mapping[str, Any] | None, path: Sequence[str]) -> float | None:
    """The number at `path` in a measured or predicted document (``("read", "iops")``), or
    None where there is none."""
    value: Any = doc
    for key in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return float(value) if isinstance(value, (int, float)) else None


def rows(measured: Mapping[str, Any], predicted_doc: Mapping[str, Any]) -> list[Row]:
    """Measured and predicted figures side by side: totals, each direction, each job."""
    out: list[Row] = []
    scopes: list[tuple[str, Mapping[str, Any] | None, Mapping[str, Any] | None]] = [
        ("total", measured, predicted_doc)]
    if all(d in measured for d in ("read", "write")):  # one direction alone repeats the total
        for d in ("read", "write"):
            scopes.append((d, measured.get(d), predicted_doc.get(d)))
    pjobs = {j.get("name"): j for j in predicted_doc.get("jobs", [])}
    for job in measured.get("jobs", []):
        if job.get("name") in pjobs and len(measured.get("jobs", [])) > 1:
            scopes.append((f"job {job['name']}", job, pjobs[job["name"]]))
    for scope, m, p in scopes:
        for figure, path in _FIGURES:
            out.append(Row(scope, figure, figure_at(m, path), figure_at(p, path)))
    return out


def predicted_figure(predicted_doc: Mapping[str, Any] | None, *, job: str | None, direction: str,
                     metric: str) -> float | None:
    """The prediction's value of one measured figure (a job's or the total, a direction or
    ``total``, a metric such as ``iops`` or ``latency.mean``); None where it predicts none."""
    if not predicted_doc:
        return None
    scope: Any = predicted_doc
    if job:
        scope = {j.get("name"): j for j in predicted_doc.get("jobs", [])}.get(job)
    if direction in ("read", "write"):
        scope = scope.get(direction) if isinstance(scope, Mapping) else None
    return figure_at(scope, metric.split("."))
