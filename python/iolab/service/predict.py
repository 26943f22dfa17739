"""The predict job: a scenario source (and options) in, a :class:`PredictResult` out, whose
:meth:`~PredictResult.to_json` is ``iolab predict --json``'s document. ``iolab predict``,
``iolab report predict`` and ``iolab serve`` call :func:`predict_file` and render its result.

A file whose jobs run in phases (fio's ``stonewall``/``wait_for``) is predicted phase by
phase and totalled (:func:`iolab.prediction.predict_file`) on every path. The latency curve
(iodepth 1, 2, 4, ... up to four times the knee) is chosen by :func:`curve_depths`, once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .source import Source, as_source, load_scenario_source, warnings_of

if TYPE_CHECKING:
    from ..prediction import Prediction
    from ..scenario import Scenario
    from ..traps import Trap
    from .sweep import Axis

__all__ = ["PredictOptions", "SweepPoint", "PredictResult", "predict_file", "curve_depths", "knee_index",
           "ordered_jobs"]

#: the deepest iodepth a curve goes to when nothing caps the path (no finite knee)
UNCAPPED_CURVE_DEPTH = 64


@dataclass(frozen=True)
class PredictOptions:
    """``catalog``: extra catalog files; ``calibration``: a calibration file to apply;
    ``sweeps``: ``OPTION=V1,V2,...`` texts, one per axis (a grid when several);
    ``curve``: also predict the latency curve (what ``--plot`` draws when no sweep is
    given) when the file runs in one phase; ``plot``: the file an interface draws the curve into (named in the JSON)."""

    catalog: tuple[Path, ...] = ()
    calibration: Path | None = None
    sweeps: tuple[str, ...] = ()
    curve: bool = False
    plot: Path | None = None


@dataclass(frozen=True)
class SweepPoint:
    """One point of a sweep or of the curve: the option values set, and its prediction."""

    values: dict[str, Any]
    prediction: Prediction

    @property
    def label(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.values.items())


@dataclass(frozen=True)
class PredictResult:
    """A scenario predicted: each phase's prediction and how long it runs (one phase when no
    job waits for another), the sweep or curve points, and the warnings about the input."""

    source: Source
    scenario: Scenario
    phases: list[Prediction]
    durations: list[float | None]
    points: list[SweepPoint] | None = None
    axes: list[Axis] = field(default_factory=list)
    warnings: list[Trap] = field(default_factory=list)
    plot: Path | None = None

    @property
    def prediction(self) -> Prediction:
        """The prediction of a file run in one phase (the first phase otherwise)."""
        return self.phases[0]

    @property
    def phased(self) -> bool:
        return len(self.phases) > 1

    @property
    def knee_point(self) -> SweepPoint | None:
        """The first curve point at or past the knee's IOPS (95 % of the bound), else the last."""
        if not self.points:
            return None
        i = knee_index([p.prediction.iops for p in self.points], self.prediction.upper_iops)
        return self.points[i if i is not None else -1]

    def to_json(self) -> dict:
        """``iolab predict --json`` (docs/predict.md)."""
        from ..prediction import file_json

        order = [j.name for j in self.scenario.jobs]
        doc = file_json(self.phases, self.durations)
        doc["jobs"] = ordered_jobs(doc["jobs"], order)
        if self.points is not None:
            doc["points"] = [{"values": dict(p.values), "params": dict(p.values), **_ordered(p.prediction.to_json(), order)}
                             for p in self.points]
        if self.plot is not None:
            doc["plot"] = str(self.plot)
        doc["warnings"] = [t.to_json() for t in self.warnings]
        return doc


def _ordered(doc: dict, order: list[str]) -> dict:
    doc["jobs"] = ordered_jobs(doc["jobs"], order)
    return doc


def ordered_jobs(jobs: list[dict], order: Sequence[str]) -> list[dict]:
    """Job documents in the order the scenario lists the jobs (others last)."""
    rank = {n: i for i, n in enumerate(order)}
    return sorted(jobs, key=lambda j: rank.get(j.get("name"), len(rank)))


def curve_depths(scenario: Scenario, prediction: Prediction) -> list[int]:
    """The iodepths of the latency curve: 1, 2, 4, ... up to four times the knee shared among
    the jobs, at least the scenario's own depth and 2; up to :data:`UNCAPPED_CURVE_DEPTH`
    when nothing caps the path (an infinite knee)."""
    jobs = max(1, sum(j.fio.numjobs for j in scenario.jobs))
    knee = prediction.solution.knee_outstanding
    finite = math.isfinite(knee)
    depth = max(1, int(prediction.solution.outstanding // jobs)) if math.isfinite(prediction.solution.outstanding) else 1
    top = max(depth, int(4 * max(1.0, knee) / max(1, len(scenario.jobs))), 2) if finite \
        else max(depth, UNCAPPED_CURVE_DEPTH)
    values, v = [], 1
    while v <= top:
        values.append(v)
        v *= 2
    return values


def knee_index(iops: Sequence[float], bound: float) -> int | None:
    """The index of the first point whose IOPS reach 95 % of `bound` (the knee), or None."""
    if not bound or not math.isfinite(bound):
        return None
    return next((i for i, x in enumerate(iops) if x >= 0.95 * bound), None)


def predict_file(source: Source | str | Path, options: PredictOptions = PredictOptions()) -> PredictResult:
    """Predict a scenario file (or text): every phase, the sweep points or the curve.

    Raises SchemaError (exit 2) for a bad file or option, naming the file or the option; a
    sweep or curve on a file run in phases is refused (its phases run one after another)."""
    from ..errors import SchemaError
    from ..prediction import predict_phases
    from .sweep import parse_axes, sweep_points

    src = as_source(source)
    s = load_scenario_source(src, options.catalog, options.calibration)
    warnings = warnings_of(src, s)
    axes = parse_axes(options.sweeps)
    preds, durations = predict_phases(s)
    if len(preds) > 1 and (axes or options.plot is not None):
        opt = "--sweep" if axes else "--plot"
        raise SchemaError(f"--sweep and --plot take jobs that run together; this file runs in {len(preds)} "
                          "phases (stonewall, wait_for)", field=opt)
    points = None
    if axes:
        points = sweep_points(s, axes)
    elif (options.curve and len(preds) == 1) or options.plot is not None:
        from .sweep import Axis

        axes = [Axis("iodepth", curve_depths(s, preds[0]))]
        points = sweep_points(s, axes)
    return PredictResult(src, s, preds, durations, points, axes, warnings, options.plot)
