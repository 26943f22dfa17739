"""The fit: least squares on the logarithm of predicted over measured IOPS, bandwidth and
mean latency across the runs, over the logarithms of the parameters (so that every figure
and every parameter weighs by its relative error), within bounds.

After the fit, each parameter's identifiability is read off the Jacobian: a column that
is flat (no measured figure moves when the parameter does) or a relative standard error
above :data:`LOOSE` means the data cannot tell its value; such a parameter keeps its start
value and gets a warning.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..bench.compare import figure_at, predicted
from ..errors import InputError, IolabError
from ..scenario import Scenario
from .calibration import calibrated
from .observations import Observation
from .parameters import Parameter, display, informed_by, set_value

__all__ = ["METRICS", "FLAT", "LOOSE", "Estimate", "PointError", "Fit", "fit", "point_errors", "scenario_with"]

#: the figures fitted, as paths into the measured and predicted JSON: the totals, and each
#: direction's when a run measured both (so that read and write latencies separate).
METRICS: tuple[tuple[str, tuple[str, ...]], ...] = tuple(
    (f"{scope}{name}", (*([scope[:-1]] if scope else []), *path))
    for scope in ("", "read.", "write.")
    for name, path in (("iops", ("iops",)), ("bandwidth", ("bandwidth",)), ("latency.mean", ("latency", "mean"))))


def _scoped(measured: Mapping[str, Any]) -> list[tuple[str, tuple[str, ...]]]:
    """The metrics a run measured: totals, and directions only when it did both."""
    both = isinstance(measured.get("read"), Mapping) and isinstance(measured.get("write"), Mapping)
    return [(n, p) for n, p in METRICS if both or len(p) == 1 or p[0] == "latency"]


#: a parameter whose 10 % change moves no fitted figure by more than FLAT × 10 % is not identified.
FLAT = 0.01
#: a relative standard error above this (in log space: ±65 %) is not identified either.
LOOSE = 0.5
#: the residual of a point the model cannot solve at some parameter values.
_MISS = 5.0


def scenario_with(s: Scenario, values: Mapping[str, float]) -> Scenario:
    """The scenario at trial values during the search (set as they are, not validated: the
    fit's answer is applied by :func:`~.calibration.calibrated`, as the file is)."""
    for path, value in values.items():
        s = set_value(s, path, value)
    return s


def _predict(s: Scenario, obs: Observation) -> dict[str, Any] | None:
    try:
        return predicted(s, obs.jobs)
    except IolabError:
        return None
    except (ValueError, ZeroDivisionError, FloatingPointError, np.linalg.LinAlgError):
        return None


@dataclass(frozen=True)
class PointError:
    """One run's measured and predicted figures (``iops``, ``bandwidth``, ``latency.mean``)
    and the relative error (predicted − measured) / measured of each."""

    run_id: int
    label: str
    measured: Mapping[str, float]
    predicted: Mapping[str, float | None]

    @property
    def errors(self) -> dict[str, float | None]:
        out: dict[str, float | None] = {}
        for name, m in self.measured.items():
            p = self.predicted.get(name)
            out[name] = None if p is None or not m else (p - m) / m
        return out

    def log_residuals(self) -> list[float]:
        """log(predicted / measured) of every fitted figure (not the simulator's percentiles);
        a figure the model cannot predict counts as a miss of e⁵."""
        fitted = {name for name, _ in METRICS}
        return [math.log(p / m) if (p := self.predicted.get(name)) and p > 0 else _MISS
                for name, m in self.measured.items() if name in fitted and m > 0]

    def to_json(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "point": self.label, "measured": dict(self.measured),
                "predicted": dict(self.predicted), "error": self.errors}


#: the percentiles set beside the simulator's with ``percentiles=True`` (not fitted).
PERCENTILES = ("p50", "p90", "p99")


def _simulated(s: Scenario, obs: Observation, ios: int) -> dict[str, Any]:
    """The simulator's total latency (seconds, by key) at this run's jobs; {} when it cannot run."""
    from msgspec.structs import replace

    from ..compile import compile_scenario
    from ..prediction import settle_mixes
    from ..sim import simulate

    by_name = {job.name: job for job in obs.jobs}
    jobs = tuple(replace(sj, fio=by_name[sj.name]) for sj in s.jobs if sj.name in by_name)
    try:
        sim = simulate(compile_scenario(settle_mixes(s.replace_jobs(jobs))), ios=ios, seed=1)
    except IolabError:
        return {}
    return dict(sim.total.latency.to_json()) if not sim.partial else {}


def point_errors(s: Scenario, observations: Sequence[Observation], *, percentiles: int = 0) -> list[PointError]:
    """Measured beside predicted at every run, for the scenario as it stands; with
    `percentiles` (a number of IOs), also the simulator's latency percentiles beside the
    measured ones."""
    out = []
    for obs in observations:
        doc = _predict(s, obs)
        metrics = _scoped(obs.measured)
        measured = {name: v for name, path in metrics if (v := figure_at(obs.measured, path))}
        predicted = {name: figure_at(doc, path) for name, path in metrics if name in measured}
        if percentiles:
            sim = _simulated(s, obs, percentiles)
            for key in PERCENTILES:
                m = figure_at(obs.measured, ("latency", key))
                if m:
                    measured[f"latency.{key}"] = m
                    predicted[f"latency.{key}"] = figure_at(sim, (key,))
        out.append(PointError(obs.run_id, obs.label, measured, predicted))
    return out


def _log_residuals(s: Scenario, observations: Sequence[Observation]) -> np.ndarray:
    """log(predicted / measured) of every fitted figure of every run: the same
    :class:`PointError` figures the error table and the JSON show."""
    return _stack(point_errors(s, observations))


def _stack(points: Sequence[PointError]) -> np.ndarray:
    return np.asarray([r for p in points for r in p.log_residuals()], dtype=float)


def _residuals(s: Scenario, params: Sequence[Parameter], x: np.ndarray,
               observations: Sequence[Observation]) -> np.ndarray:
    return _log_residuals(scenario_with(s, {p.path: float(math.exp(v)) for p, v in zip(params, x)}), observations)


@dataclass(frozen=True)
class Estimate:
    """A fitted parameter: start and fitted values (base units), relative standard error,
    sensitivity (the largest change of a fitted figure per relative change of the
    parameter), and the warning when the data cannot identify it (the value then stays
    at its start)."""

    parameter: Parameter
    value: float
    fitted: float
    relative_error: float | None
    sensitivity: float
    warning: str | None = None
    note: str | None = None

    @property
    def identified(self) -> bool:
        return self.warning is None


@dataclass(frozen=True)
class Fit:
    """The outcome: estimates, per-point errors before and after, the RMS of the log
    residuals before and after, and warnings."""

    estimates: tuple[Estimate, ...]
    before: tuple[PointError, ...]
    after: tuple[PointError, ...]
    rms_before: float
    rms_after: float
    warnings: tuple[str, ...] = field(default_factory=tuple)

    @property
    def values(self) -> dict[str, float]:
        return _values(self.estimates)


def _values(estimates: Sequence[Estimate]) -> dict[str, float]:
    """The values to write: fitted where identified, the start where a scenario gave one."""
    return {e.parameter.path: e.value for e in estimates if e.identified or e.parameter.given}


def _rms(r: np.ndarray) -> float:
    return float(np.sqrt(np.mean(r ** 2))) if r.size else 0.0


def fit(s: Scenario, params: Sequence[Parameter], observations: Sequence[Observation], *, percentiles: int = 0) -> Fit:
    """Fit `params` of scenario `s` to `observations` (see the module docstring); with
    `percentiles` (IOs to simulate), the per-point errors also set the simulator's latency
    percentiles beside the measured ones (they are not fitted).

    Raises InputError when there is nothing to fit or nothing to fit it to.
    """
    from scipy.optimize import least_squares

    if not observations:
        raise InputError("no usable run to calibrate from (every run failed or measured nothing)",
                         field="--runs")
    if not params:
        raise InputError("no parameter to fit: name one with --fit", field="--fit")
    lo = np.log([p.bounds[0] for p in params])
    hi = np.log([p.bounds[1] for p in params])
    x0 = np.clip(np.log([p.start for p in params]), lo, hi)
    r0 = _log_residuals(s, observations)
    if len(r0) < len(params):
        raise InputError(f"{len(r0)} measured figures cannot fit {len(params)} parameters: add runs",
                         field="--runs")
    result = least_squares(lambda x: _residuals(s, params, x, observations), x0, bounds=(lo, hi),
                           method="trf", x_scale=1.0, diff_step=1e-3, max_nfev=200 * len(params))
    jac = np.atleast_2d(result.jac)
    n, k = jac.shape
    sigma2 = float(result.fun @ result.fun) / max(1, n - k)
    cov = np.linalg.pinv(jac.T @ jac) * max(sigma2, 1e-12)
    estimates = []
    warnings: list[str] = []
    for i, p in enumerate(params):
        sens = float(np.max(np.abs(jac[:, i]))) if n else 0.0
        rel = float(math.sqrt(cov[i, i])) if cov[i, i] >= 0 else None
        fitted = float(math.exp(result.x[i]))
        warning = note = None
        if sens < FLAT:
            warning = (f"the data cannot identify {p.path}: no measured figure depends on it "
                       f"(a 10 % change moves none by {FLAT * 10:g} %); {informed_by(p.path)} would inform it")
        elif rel is None or rel > LOOSE:
            spread = f"±{(math.exp(rel) - 1) * 100:.0f} %" if rel is not None and rel < 20 else "any value"
            warning = f"the data cannot identify {p.path}: its value is uncertain to {spread}"
        elif result.active_mask[i] != 0:
            note = f"{p.path} ended at its bound ({display(p.unit, fitted)}): the model cannot fit the data better"
            warnings.append(note)
        if warning:
            warning += f"; kept {display(p.unit, p.start) if p.given else 'unset'}"
            warnings.append(warning)
        estimates.append(Estimate(p, p.start if warning else fitted, fitted, rel, sens, warning, note))
    final = calibrated(s, _values(estimates))
    before = tuple(point_errors(s, observations, percentiles=percentiles))
    after = tuple(point_errors(final, observations, percentiles=percentiles))
    return Fit(tuple(estimates), before, after, _rms(_stack(before)), _rms(_stack(after)), tuple(warnings))
