"""The plan service: a requirements file (or its text) in, the plan every interface renders out.

``iolab plan`` (text and ``--json``), ``iolab report plan`` and any later interface call
:func:`plan_file` (or :func:`plan_text`, for requirements held in memory under a display
name) and only render the :class:`PlanResult`: the same candidates, costs, labels and
explanations everywhere. ``PlanResult.to_json()`` is exactly ``iolab plan --json``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from ..errors import InputError

if TYPE_CHECKING:
    from ..plan import Plan, PoolResult, Requirements
    from ..plan.machine import MachinePlan

__all__ = ["PlanOptions", "PlanResult", "plan_file", "plan_text", "TOP", "TAIL_OPTIONS"]

TOP = 5
"""Configurations ranked unless told otherwise."""

TAIL_OPTIONS = {"check_top": "--check-top", "sim_ios": "--sim-ios", "replications": "--replications",
                "seed": "--seed"}
"""The options that set how latency percentiles are checked by simulation, and their names."""


class PlanOptions(msgspec.Struct, frozen=True):
    """How to plan. Each option left None was not given: its default applies, and an
    option given where it has no effect is refused (``top`` for a pool plan, the
    simulation's options for requirements that bound no percentile).

    ``region``: whose prices (None: the default region of the requirements' cloud); ``pricing``: a pricing model's name (``payg``,
    ``reserved-3y``...), overriding the requirements' ``pricing.model``; ``calibration``: a calibration file whose catalog
    values apply; ``progress(done, total, fraction)``: told as candidates are simulated."""

    top: int | None = None
    region: str | None = None
    pricing: str | None = None
    check_top: int | None = None
    sim_ios: int | None = None
    replications: int | None = None
    seed: int | None = None
    calibration: Path | None = None
    progress: Callable[[int, int, float], None] | None = None  # compared too: options are never compared


class PlanResult(msgspec.Struct, frozen=True):
    """A plan and what it was made from: ``file`` (as given, or the display name),
    ``requirements`` (in the region planned), ``plan`` (:class:`~iolab.plan.Plan`,
    :class:`~iolab.plan.machine.MachinePlan` or :class:`~iolab.plan.PoolResult`) and the
    ``warnings`` about the file (traps such as a latency without a unit)."""

    file: str
    requirements: "Requirements"
    plan: "Plan | MachinePlan | PoolResult"
    warnings: tuple[Any, ...] = ()

    def to_json(self) -> dict:
        """Exactly ``iolab plan --json``."""
        return {**self.plan.to_json(), "warnings": [w.to_json() for w in self.warnings]}


def plan_file(path: str | Path, catalog: Sequence[str | Path] = (), options: PlanOptions | None = None) -> PlanResult:
    """Plan the requirements file at ``path`` with the extra ``catalog`` files.

    Raises :class:`~iolab.errors.InputError` (exit 2) naming the file and field for bad
    input, and naming the option for one given where it has no effect."""
    from ..filekind import expect
    from ..plan import load_requirements
    from ..input_warnings import traps_of

    expect(path, "requirements")
    opts = options or PlanOptions()
    req = _load(opts, catalog, lambda files: load_requirements(path, files))
    return _plan(str(path), req, opts, traps_of(req))


def plan_text(text: str, name: str, catalog: Sequence[str | Path] = (), options: PlanOptions | None = None,
              base: str | Path | None = None) -> PlanResult:
    """Plan requirements held in memory (a web page's form): ``text`` is the YAML, ``name``
    the name errors and the result give it; relative paths in it (``catalog:``,
    ``fio_file:``) are read from ``base`` (default: the working directory)."""
    from ..filekind import expect_data
    from ..plan import parse_requirements
    from ..plan.requirements import TOP_LEVEL
    from ..schema import parse_yaml
    from ..input_warnings import traps_of

    data = parse_yaml(text, file=name)
    expect_data(data, name, "requirements", TOP_LEVEL)
    opts = options or PlanOptions()
    where = Path(base) if base is not None else Path(".")
    req = _load(opts, catalog, lambda files: parse_requirements(data, file=name, base=where, catalog_files=files))
    return _plan(name, req, opts, traps_of(req, data, where))


def _load(opts: PlanOptions, catalog: Sequence[str | Path], load: Callable[[list], "Requirements"]) -> "Requirements":
    """The requirements, with the calibration's catalog values, priced in the region."""
    if opts.calibration is None:
        return load(list(catalog)).in_region(opts.region, opts.pricing)
    import tempfile

    from ..calibrate.calibration import calibration_catalog

    with tempfile.TemporaryDirectory(prefix="iolab-") as tmp:
        section = calibration_catalog(opts.calibration, tmp)
        try:
            req = load([*catalog, section])
        except InputError as e:  # the section's fault, named in the calibration file, not its temporary copy
            if e.file != str(section):
                raise
            raise InputError(e.message, file=str(opts.calibration),
                             field=f"catalog.{e.field}" if e.field else "catalog") from None
    return req.in_region(opts.region, opts.pricing)


def _plan(file: str, req: "Requirements", opts: PlanOptions, warnings: list) -> PlanResult:
    from ..plan import plan
    from ..plan.tail import CHECK_TOP, REPLICATIONS, TailOptions

    bounded = any(r.require is not None and bool(r.require.percentiles) for r in (req, *req.workloads))
    if req.pool is not None and opts.top is not None:
        raise InputError(f"has no effect here: it applies to disk and share plans (a pool plan lists every level "
                         f"searched; {file} is one)", field="--top")
    if not bounded:
        for key, option in TAIL_OPTIONS.items():
            if getattr(opts, key) is not None:
                raise InputError("has no effect here: it applies when the requirements bound a latency percentile "
                                 "(latency: {p99: 10ms}), which plan checks by simulating candidates", field=option)
    tail = TailOptions(CHECK_TOP if opts.check_top is None else opts.check_top, opts.sim_ios,
                       REPLICATIONS if opts.replications is None else opts.replications,
                       1 if opts.seed is None else opts.seed, opts.progress)
    result = plan(req, top=TOP if opts.top is None else opts.top, tail=tail)
    return PlanResult(file, req, result, tuple(warnings))

