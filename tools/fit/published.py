"""The published-figures set (``tests/published/*.yaml``): each file holds the figures one
vendor page publishes, each encoded as a case — a scenario, the figure it names, the published
value, a tolerance and the fit's split — and this module runs them through ``predict`` (or
``simulate``, for a percentile) with the bundled catalog, or with parameters changed in it.

A case file::

    source: {title, page, commit or url, date}
    scenario: {...}            # optional: the scenario the cases share (each case's is merged in)
    cases:
      - id: scale-up-4k-read
        claim: "~200,000 read IOPS with nconnect"      # the page's words, shortened
        scenario: {...}        # merged over the file's
        figure: iops           # a key of predict's JSON (dots for nested: latency.p90)
        expected: 200000
        tolerance: 0.10        # relative
        bound: upper           # optional: the figure must be at most (upper) or at least (lower) expected
        base: {...}            # optional: the figure is the ratio of this case's over the scenario merged with base
        engine: simulate       # optional: predict (default) or simulate
        split: train           # train or validate: the fit sees only the train part
        kind: iops             # what the figure measures: iops, bandwidth, latency or ratio (default from figure)
"""

from __future__ import annotations

import copy
import math
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "published"
SIM_IOS = 60000
SIM_SEED = 7


@dataclass(frozen=True)
class Case:
    file: str
    id: str
    claim: str
    scenario: dict
    figure: str
    expected: float
    tolerance: float
    split: str
    service: str
    kind: str
    engine: str = "predict"
    bound: str | None = None
    base: dict | None = None
    source: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.file}:{self.id}"


def merge(old: Any, new: Any) -> Any:
    """``new`` over ``old``: mappings merge key by key, anything else is replaced."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = dict(old)
        for k, v in new.items():
            out[k] = merge(old.get(k), v) if k in old else copy.deepcopy(v)
        return out
    return copy.deepcopy(new)


def _service(scenario: dict) -> str:
    vols = scenario.get("volumes") or {}
    for vol in vols.values():
        if isinstance(vol, dict) and "service" in vol:
            return vol["service"]
    return "none"


def _kind(figure: str, base: dict | None) -> str:
    if base is not None:
        return "ratio"
    head = figure.split(".")[-1] if figure.startswith(("read.", "write.")) else figure.split(".")[0]
    return {"iops": "iops", "bandwidth": "bandwidth"}.get(head, "latency")


def load_cases(directory: Path = CASES) -> list[Case]:
    """Every case of every ``*.yaml`` file in ``directory``, in file and list order."""
    cases = []
    for path in sorted(directory.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text())
        shared = doc.get("scenario") or {}
        for raw in doc["cases"]:
            scenario = merge(shared, raw.get("scenario") or {})
            base = raw.get("base")
            cases.append(Case(
                file=path.stem, id=raw["id"], claim=raw.get("claim", ""), scenario=scenario,
                figure=raw["figure"], expected=float(raw["expected"]), tolerance=float(raw["tolerance"]),
                split=raw["split"], service=_service(scenario), kind=raw.get("kind") or _kind(raw["figure"], base),
                engine=raw.get("engine", "predict"), bound=raw.get("bound"), base=base, source=doc["source"]))
    return cases


def _pick(doc: dict, figure: str) -> float:
    value: Any = doc
    for part in figure.split("."):
        value = value[part]
    return float(value)


def _figure(scenario: dict, figure: str, engine: str, catalog: tuple[str, ...]) -> float:
    from iolab.prediction import predict
    from iolab.scenario import parse_scenario

    s = parse_scenario(copy.deepcopy(scenario), file="published case", base=ROOT, catalog_files=catalog)
    p = predict(s)
    if engine == "simulate":
        from iolab.sim import simulate

        return _pick(simulate(p.network, ios=SIM_IOS, seed=SIM_SEED).to_json(), figure)
    return _pick(p.to_json(), figure)


def model_figure(case: Case, catalog: tuple[str, ...] = ()) -> float:
    """The model's figure for ``case`` (with ``catalog`` files over the bundled catalog)."""
    value = _figure(case.scenario, case.figure, case.engine, catalog)
    if case.base is not None:
        value /= _figure(merge(case.scenario, case.base), case.figure, case.engine, catalog)
    return value


def error(case: Case, value: float) -> float:
    """The relative error of ``value`` against the published figure (0 when a bound holds)."""
    if case.bound == "upper" and value <= case.expected:
        return 0.0
    if case.bound == "lower" and value >= case.expected:
        return 0.0
    return (value - case.expected) / case.expected


def within(case: Case, value: float) -> bool:
    return math.isfinite(value) and abs(error(case, value)) <= case.tolerance


def catalog_file(params: dict[str, float], directory: Path) -> tuple[str, ...]:
    """A catalog file setting each parameter (``protocols/nfs3/connection_iops``: its value)."""
    if not params:
        return ()
    doc: dict = {}
    for name, value in params.items():
        section, row, *keys = name.split("/")
        node = doc.setdefault(section, {}).setdefault(row, {})
        for k in keys[:-1]:
            node = node.setdefault(k, {})
        node[keys[-1]] = float(value)
    path = Path(tempfile.mkstemp(suffix=".yaml", dir=directory)[1])
    path.write_text(yaml.safe_dump(doc))
    return (str(path),)
