"""The prediction beside the measurement, when a scenario describes the target.

:func:`predicted` asks the analytic engine (:func:`iolab.prediction.predict`) about the
scenario with the jobs as they actually ran (after ``--iodepth`` and friends, at a sweep
point); :func:`rows` lines up measured and predicted figures with their ratio
(measured / predicted).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..errors import RuleViolation
from ..fio import FioJob

__all__ = ["predicted", "check_clients", "Row", "rows", "predicted_figure"]


def predicted(scenario: Any, jobs: Sequence[FioJob]) -> dict[str, Any]:
    """The predict JSON (docs/predict.md) of `scenario` with its jobs replaced by `jobs` (same
    order and names as the scenario's). Raises what prediction raises for a scenario it
    cannot model."""
    from ..prediction import predict_json

    by_name = {job.name: job for job in jobs}
    new_jobs = tuple(replace(sj, fio=by_name.get(sj.name, sj.fio)) for sj in scenario.jobs
                     if sj.name in by_name)
    return predict_json(scenario.replace_jobs(new_jobs))


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


def _get(doc: Mapping[str, Any] | None, path: Sequence[str]) -> float | None:
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
            out.append(Row(scope, figure, _get(m, path), _get(p, path)))
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
    return _get(scope, metric.split("."))
