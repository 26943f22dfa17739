"""Build a report page from what the user names: stored runs or sweeps, a scenario or a
prediction, a requirements file or a plan, a characterization."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import InputError, SchemaError
from .page import Page, Section
from .shapes import CALIBRATION, CHARACTERIZATION, PLAN, PREDICTION, check

__all__ = ["KINDS", "build"]

KINDS = ("run", "sweep", "predict", "plan", "characterize", "calibration")


def _json(path: Path, what: str) -> Any:
    from ..inputs import read_text

    text = read_text(path)  # a regular file of bounded size (never /dev/zero or a FIFO), UTF-8
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise SchemaError(f"not JSON ({e.msg} at line {e.lineno}); expected the output of {what}",
                          file=str(path)) from None
    if not isinstance(doc, dict):
        raise SchemaError(f"expected a JSON object, the output of {what}", file=str(path))
    return doc


def _ids(items: Sequence[str], kind: str) -> list[int]:
    out = []
    for item in items:
        if not item.isdigit():
            raise InputError(f"expected a {kind} id (a whole number), got {item!r}", field="ITEM")
        out.append(int(item))
    from ..bench.store import refuse_repeats

    refuse_repeats(out, "ITEM", kind)
    return out


def _store(db: Path | None) -> Any:
    from ..service.results import open_results

    return open_results(db)


def _runs(kind: str, items: Sequence[str], db: Path | None) -> list[Section]:
    from .runs import run_section, sweep_section

    ids = _ids(items, kind)
    with _store(db) as store:
        if kind == "run":
            return [run_section(store.load(i, "ITEM")) for i in ids]
        out = []
        for i in ids:
            info = store.sweep(i, field="ITEM")
            records = [store.load(s.run_id) for s in sorted(store.summaries(sweep_id=i), key=lambda s: s.run_id)]
            out.append(sweep_section(info, records))
        return out


def _predict(path: Path, catalog: Sequence[Path], calibration: Path | None) -> Section:
    from .prediction import prediction_section

    if path.suffix.lower() == ".json":
        doc = _json(path, "iolab predict --json")
        if "bottleneck" not in doc or "iops" not in doc:
            raise SchemaError("expected the output of iolab predict --json (iops, bottleneck, ...)", file=str(path))
        check(doc, PREDICTION, file=str(path), what="iolab predict --json")
        return prediction_section(doc, title=f"Prediction: {path.name}")
    from .. import __version__
    from ..service.predict import PredictOptions, predict_file

    result = predict_file(path, PredictOptions(catalog=tuple(catalog), calibration=calibration, curve=True))
    doc = result.to_json()
    facts: list[tuple[str, object]] = [("iolab", __version__),
                                       ("catalog files", ", ".join(map(str, catalog)) or "the bundled catalog"),
                                       ("calibration", str(calibration) if calibration else None)]
    return prediction_section(doc, title=f"Prediction: {path.name}", scenario_text=path.read_text(encoding="utf-8"),
                              facts=facts)


def _plan(path: Path, catalog: Sequence[Path], options: Any) -> Section:
    from .plan import plan_section

    if path.suffix.lower() == ".json":
        doc = _json(path, "iolab plan --json")
        if "candidates" not in doc:
            raise SchemaError("expected the output of iolab plan --json (candidates, ...)", file=str(path))
        check(doc, PLAN, file=str(path), what="iolab plan --json")
        return plan_section(doc, title=f"Plan: {path.name}")
    from ..service.plan import plan_file

    result = plan_file(path, catalog, options)
    return plan_section(result.to_json(), title=f"Plan: {path.name}", asked=path.read_text(encoding="utf-8"))


def _characterize(path: Path) -> Section:
    from .characterization import characterization_section

    doc = _json(path, "iolab characterize --json")
    if "devices" not in doc and "combined" not in doc:
        raise SchemaError("expected the output of iolab characterize --json (devices, combined, ...)",
                          file=str(path))
    check(doc, CHARACTERIZATION, file=str(path), what="iolab characterize --json")
    return characterization_section(doc, title=f"Characterization: {path.name}")


def _calibration(path: Path) -> Section:
    from ..schema import load_yaml
    from .calibration import calibration_section

    doc = load_yaml(path)
    if not isinstance(doc, dict) or not isinstance(doc.get("calibration"), dict):
        raise SchemaError("expected a calibration file (iolab calibrate -o) with its calibration section",
                          file=str(path))
    check(doc, CALIBRATION, file=str(path), what="iolab calibrate -o")
    return calibration_section(doc, title=f"Calibration: {path.name}")


def build(kind: str, items: Sequence[str], *, db: Path | None = None, catalog: Sequence[Path] = (),
          calibration: Path | None = None, plan: Any = None) -> Page:
    """The page for `items` of `kind` (one section each; `plan`: the plan service's
    :class:`~iolab.service.plan.PlanOptions` for requirements files). Raises InputError for
    an unknown kind, id or file, and for a plan option given where it has no effect (`top`
    to a pool plan, which lists every level)."""
    if kind not in KINDS:
        raise InputError(f"unknown report kind {kind!r}; one of: {', '.join(KINDS)}", field="KIND")
    if not items:
        raise InputError(f"name at least one {'id' if kind in ('run', 'sweep') else 'file'} to report on", field="ITEM")
    if any(not item for item in items):  # Path("") would be the working directory
        raise InputError("an empty item; give an id or a file", field="ITEM")
    if kind in ("run", "sweep"):
        sections = _runs(kind, items, db)
    elif kind == "predict":
        sections = [_predict(Path(i), catalog, calibration) for i in items]
    elif kind == "plan":
        sections = [_plan(Path(i), catalog, plan) for i in items]
    elif kind == "calibration":
        sections = [_calibration(Path(i)) for i in items]
    else:
        sections = [_characterize(Path(i)) for i in items]
    title = sections[0].title if len(sections) == 1 else f"iolab report: {len(sections)} {kind}s"
    return Page(title, sections)
