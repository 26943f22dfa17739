"""The calibrate job: a scenario and stored bench runs in, a :class:`CalibrateResult` out,
whose :meth:`~CalibrateResult.to_json` is ``iolab calibrate --json``'s document. Every run is
predicted as it ran (its own fio jobs, :func:`iolab.bench.compare.predicted`), and the
error table, the JSON and the RMS line are read from the same :class:`~iolab.calibrate.fit.PointError`
figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .results import open_results
from .source import Source, as_source, load_scenario_source

if TYPE_CHECKING:
    from ..calibrate import Fit, Parameter, PointError

__all__ = ["SIMULATED_IOS", "CalibrateOptions", "CalibrateResult", "calibrate_runs", "mean_errors"]

#: IOs the simulator runs per point with ``percentiles``.
SIMULATED_IOS = 50_000


@dataclass(frozen=True)
class CalibrateOptions:
    """``runs`` (run ids) or ``sweep`` (a sweep id) to fit to; ``validate``: held-out run
    ids, predicted after the fit; ``fit``/``hold``: parameters to add or hold;
    ``percentiles``: set the simulator's p50/p90/p99 beside the measured ones; ``output``:
    write the calibration file there (``force`` replaces one); ``db``: the results database."""

    runs: tuple[int, ...] = ()
    sweep: int | None = None
    validate: tuple[int, ...] = ()
    fit: tuple[str, ...] = ()
    hold: tuple[str, ...] = ()
    percentiles: bool = False
    output: Path | None = None
    force: bool = False
    db: Path | None = None
    catalog: tuple[Path, ...] = ()


@dataclass(frozen=True)
class CalibrateResult:
    """The fit (parameters, each run before and after), the held-out runs before and after,
    the calibration document written (or that would be), notes about runs left out."""

    source: Source
    database: str
    runs: list[int]
    sweep: int | None
    candidates: list[Parameter]
    fit: Fit
    held_before: list[PointError]
    held_after: list[PointError]
    document: dict
    notes: list[str] = field(default_factory=list)
    output: Path | None = None

    def to_json(self) -> dict:
        """``iolab calibrate --json`` (docs/calibrate.md)."""
        fitted = {e.parameter.path: e for e in self.fit.estimates}
        doc = self.document
        return {
            "scenario": self.source.name, "database": self.database, "runs": self.runs, "sweep": self.sweep,
            "parameters": [_parameter(p, fitted.get(p.path)) for p in self.candidates],
            "points": _points(self.fit.before, self.fit.after),
            "error_before": mean_errors(self.fit.before), "error_after": mean_errors(self.fit.after),
            "held_out": _points(self.held_before, self.held_after),
            "held_out_error_before": mean_errors(self.held_before), "held_out_error_after": mean_errors(self.held_after),
            "rms_log_before": self.fit.rms_before, "rms_log_after": self.fit.rms_after,
            "warnings": list(self.fit.warnings), "notes": list(self.notes),
            "overrides": {k: v for k, v in doc.items() if k not in ("version", "calibration", "catalog")},
            "catalog": doc.get("catalog"),
            "output": None if self.output is None else str(self.output),
        }


def _parameter(p: Any, e: Any) -> dict[str, Any]:
    """A parameter as the JSON gives it: ``before``/``after`` values (base units), ``fixed``
    (held, not fitted) and ``identifiable`` (None for a fixed one)."""
    doc: dict[str, Any] = {"name": p.path, "unit": p.unit, "before": p.start if p.given else None}
    if e is None:
        return {**doc, "after": doc["before"], "fixed": True, "identifiable": None}
    return {**doc, "after": e.value, "fixed": False, "identifiable": e.identified, "fitted": e.fitted,
            "relative_error": e.relative_error, "sensitivity": round(e.sensitivity, 6), "warning": e.warning,
            "note": e.note}


def _points(before: Sequence[PointError], after: Sequence[PointError]) -> list[dict[str, Any]]:
    return [{"run_id": b.run_id, "point": b.label, "measured": dict(b.measured), "before": dict(b.predicted),
             "after": dict(a.predicted), "error_before": b.errors, "error_after": a.errors}
            for b, a in zip(before, after)]


def mean_errors(points: Sequence[PointError]) -> dict[str, float]:
    """Mean absolute relative error of each figure across the points."""
    out: dict[str, list[float]] = {}
    for p in points:
        for name, err in p.errors.items():
            if err is not None:
                out.setdefault(name, []).append(abs(err))
    return {name: sum(v) / len(v) for name, v in out.items()}


def _uninformed(s: Any, cands: Sequence[Parameter], directions: set[str], fit: list[str], notes: list[str]) -> None:
    """Name the parameters no run informs (a direction no run measured) with the run that
    would: a note for each, and InputError when ``--fit`` names one."""
    from ..calibrate import candidates
    from ..calibrate.parameters import informed_by
    from ..errors import InputError

    known = {p.path for p in cands}
    every = [p for p in candidates(s, peak_iops=1.0, peak_bandwidth=1.0, directions={"read", "write"})
             if p.path not in known]
    for name in fit:
        hit = next((p for p in every if p.path == name or p.path.endswith(f".{name}")), None)
        if hit is not None:
            raise InputError(f"no run informs {hit.path} (none {'reads' if 'read' in hit.path else 'writes'}): "
                             f"{informed_by(hit.path)} would inform it", field="--fit")
    for p in every:
        notes.append(f"no run informs {p.path}; {informed_by(p.path)} would inform it")


def calibrate_runs(source: Source | str | Path, options: CalibrateOptions) -> CalibrateResult:
    """Fit the scenario's uncertain parameters to the stored runs and, with ``output``, write
    the calibration file. InputError (exit 2) for runs missing, given twice, both fitted and
    held out, or an output that exists without ``force``."""
    from ..bench.store import refuse_repeats
    from ..calibrate import candidates, document, fit, observations, point_errors, render, select
    from ..calibrate.calibration import calibrated, catalog_overrides
    from ..errors import InputError
    from ..outputs import check_output, write_output

    run_ids, held = list(options.runs), list(options.validate)
    refuse_repeats(run_ids, "--runs")
    refuse_repeats(held, "--validate")
    if bool(run_ids) == (options.sweep is not None):
        raise InputError("give the runs to fit: --runs ID... or --sweep ID (one of them)", field="--runs")
    if options.output is not None:
        check_output(options.output, force=options.force)
    src = as_source(source)
    s = load_scenario_source(src, options.catalog)
    with open_results(options.db) as store:
        if options.sweep is not None:
            store.sweep(options.sweep)
            run_ids = sorted(r.run_id for r in store.summaries(sweep_id=options.sweep))
        both = sorted(set(run_ids) & set(held))
        if both:  # a held-out run must not be fitted to: it would check the fit against itself
            raise InputError(f"run {both[0]} is both fitted to ({'--sweep' if options.sweep is not None else '--runs'}) "
                             "and held out: held-out runs are predicted after the fit, not fitted to",
                             field="--validate")
        records = [store.load(i, "--runs") for i in run_ids]
        held_records = [store.load(i, "--validate") for i in held]
        path = str(store.path)
    obs, notes = observations(records, s)
    held_obs, held_notes = observations(held_records, s)
    directions = {d for o in obs for d in ("read", "write") if d in o.measured}
    if not directions:
        directions = {"read" if any(j.rw in ("read", "randread") for j in o.jobs) else "write" for o in obs} or {"read"}
    cands = candidates(s, peak_iops=max((o.measured["iops"] for o in obs), default=1.0),
                       peak_bandwidth=max((o.measured["bandwidth"] for o in obs), default=1.0),
                       directions=directions)
    _uninformed(s, cands, directions, list(options.fit), notes)
    params = select(cands, list(options.fit), list(options.hold))
    ios = SIMULATED_IOS if options.percentiles else 0
    result = fit(s, params, obs, percentiles=ios)
    after = point_errors(calibrated(s, result.values), held_obs, percentiles=ios) if held_obs else []
    before = point_errors(s, held_obs, percentiles=ios) if held_obs else []
    doc = document(result, scenario=src.name, database=path, runs=run_ids, sweep=options.sweep, validation=after,
                   catalog=catalog_overrides(s, result.values))
    if options.output is not None:
        write_output(options.output, render(doc), force=options.force)
    return CalibrateResult(src, path, run_ids, options.sweep, cands, result, before, after, doc,
                           notes + held_notes, options.output)
