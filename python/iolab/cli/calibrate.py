"""`iolab calibrate`: fit a scenario's uncertain parameters to stored bench runs and write a
calibration file that predict and simulate take with --calibration."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from ..errors import InputError
from .bench import DB_OPTION
from .pairing import refuse_alone
from .common import CATALOG_OPTION, JSON_OPTION, console, err_console, print_json


def parse_ids(texts: list[str] | None, option: str) -> list[int]:
    """``["1,2", "5"]`` → ``[1, 2, 5]``; InputError naming `option` for anything else."""
    out: list[int] = []
    for text in texts or []:
        for part in text.split(","):
            part = part.strip()
            if not part:
                continue
            if not part.isdigit() or int(part) < 1:
                raise InputError(f"expected run ids (whole numbers, comma-separated), got {part!r}", field=option)
            out.append(int(part))
    return out


#: IOs the simulator runs per point with --percentiles.
SIMULATED_IOS = 50_000


def _pct(x: float | None) -> str:
    return "" if x is None else f"{x * 100:+.1f} %"


def calibrate(
    scenario: Path = typer.Argument(..., help="The scenario the runs measured (YAML)."),
    runs: Optional[list[str]] = typer.Option(None, "--runs", metavar="ID[,ID...]", help="Fit to these stored runs "
                                             "(repeatable, comma-separated).", show_default=False),
    sweep: Optional[int] = typer.Option(None, "--sweep", metavar="ID", help="Fit to every run of this stored sweep."),
    validate: Optional[list[str]] = typer.Option(None, "--validate", metavar="ID[,ID...]", help="Held-out runs: "
                                                 "predicted after the fit, not fitted to.", show_default=False),
    fit_: Optional[list[str]] = typer.Option(None, "--fit", metavar="PARAM", help="Also fit this parameter (a path such "
                                             "as volumes.disk.device.iops, or a field name; repeatable).",
                                             show_default=False),
    hold: Optional[list[str]] = typer.Option(None, "--hold", metavar="PARAM", help="Hold this parameter at the "
                                             "scenario's value instead of fitting it (repeatable).", show_default=False),
    percentiles: bool = typer.Option(False, "--percentiles", help="Also set the simulator's p50/p90/p99 "
                                     "beside the measured ones, before and after (not fitted)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", metavar="FILE", help="Write the calibration file here."),
    force: bool = typer.Option(False, "--force", help="Replace an existing --output file."),
    db: Optional[Path] = DB_OPTION,
    catalog: Optional[list[Path]] = CATALOG_OPTION,
    json_: bool = JSON_OPTION,
) -> None:
    """Fit a scenario's latencies, CPU cost (and named caps) to stored bench runs."""
    from ..calibrate import candidates, document, fit, observations, point_errors, render, select
    from ..calibrate.fit import scenario_with
    from ..report.output import check_output, write_output
    from ..scenario import load_scenario
    from .results import _open

    run_ids = parse_ids(runs, "--runs")
    held = parse_ids(validate, "--validate")
    from ..bench.store import refuse_repeats

    refuse_repeats(run_ids, "--runs")
    refuse_repeats(held, "--validate")
    if bool(run_ids) == (sweep is not None):
        raise InputError("give the runs to fit: --runs ID... or --sweep ID (one of them)", field="--runs")
    if output is not None:
        check_output(output, force=force)
    else:
        refuse_alone("--force", force, "with --output FILE (it replaces an existing one)")
    s = load_scenario(scenario, catalog or ())
    store = _open(db)
    with store:
        if sweep is not None:
            store.sweep(sweep)
            run_ids = sorted(r.run_id for r in store.summaries(sweep_id=sweep))
        both = sorted(set(run_ids) & set(held))
        if both:  # a held-out run must not be fitted to: it would check the fit against itself
            raise InputError(f"run {both[0]} is both fitted to ({'--sweep' if sweep is not None else '--runs'}) "
                             "and held out: held-out runs are predicted after the fit, not fitted to",
                             field="--validate")
        records = [store.load(i, "--runs") for i in run_ids]
        held_records = [store.load(i, "--validate") for i in held]
        path = str(store.path)
    obs, notes = observations(records, s)
    held_obs, held_notes = observations(held_records, s)
    directions = {d for o in obs for d in ("read", "write") if d in o.measured} or {"read"}
    if not any(d in o.measured for o in obs for d in ("read", "write")):
        directions = {"read" if any(j.rw in ("read", "randread") for j in o.jobs) else "write" for o in obs} or {"read"}
    cands = candidates(s, peak_iops=max((o.measured["iops"] for o in obs), default=1.0),
                       peak_bandwidth=max((o.measured["bandwidth"] for o in obs), default=1.0),
                       directions=directions)
    params = select(cands, fit_ or [], hold or [])
    ios = SIMULATED_IOS if percentiles else 0
    result = fit(s, params, obs, percentiles=ios)
    validation = point_errors(scenario_with(s, result.values), held_obs, percentiles=ios) if held_obs else []
    validation_before = point_errors(s, held_obs, percentiles=ios) if held_obs else []
    from ..calibrate.calibration import catalog_overrides

    doc = document(result, scenario=str(scenario), database=path, runs=run_ids, sweep=sweep, validation=validation,
                   catalog=catalog_overrides(s, result.values))
    if output is not None:
        write_output(output, render(doc), force=force)
    if json_:
        fitted = {e.parameter.path: e for e in result.estimates}
        print_json({
            "scenario": str(scenario), "database": path, "runs": run_ids, "sweep": sweep,
            "parameters": [_parameter(p, fitted.get(p.path)) for p in cands],
            "points": _points(result.before, result.after),
            "error_before": _mape(result.before), "error_after": _mape(result.after),
            "held_out": _points(validation_before, validation),
            "held_out_error_before": _mape(validation_before), "held_out_error_after": _mape(validation),
            "rms_log_before": result.rms_before, "rms_log_after": result.rms_after,
            "warnings": list(result.warnings), "notes": notes + held_notes,
            "overrides": {k: v for k, v in doc.items() if k not in ("version", "calibration", "catalog")},
            "catalog": doc.get("catalog"),
            "output": None if output is None else str(output),
        })
        return
    _print(result, validation_before, validation, notes + held_notes, output)


def _parameter(p: Any, e: Any) -> dict[str, Any]:
    """A parameter as the JSON gives it: ``before``/``after`` values (base units), ``fixed``
    (held, not fitted) and ``identifiable`` (None for a fixed one)."""
    doc: dict[str, Any] = {"name": p.path, "unit": p.unit, "before": p.start if p.given else None}
    if e is None:
        return {**doc, "after": doc["before"], "fixed": True, "identifiable": None}
    return {**doc, "after": e.value, "fixed": False, "identifiable": e.identified, "fitted": e.fitted,
            "relative_error": e.relative_error, "sensitivity": round(e.sensitivity, 6), "warning": e.warning,
            "note": e.note}


def _points(before: list, after: list) -> list[dict[str, Any]]:
    return [{"run_id": b.run_id, "point": b.label, "measured": dict(b.measured), "before": dict(b.predicted),
             "after": dict(a.predicted), "error_before": b.errors, "error_after": a.errors}
            for b, a in zip(before, after)]


def _mape(points: list) -> dict[str, float]:
    """Mean absolute relative error of each figure across the points."""
    out: dict[str, list[float]] = {}
    for p in points:
        for name, err in p.errors.items():
            if err is not None:
                out.setdefault(name, []).append(abs(err))
    return {name: sum(v) / len(v) for name, v in out.items()}


def _print(result: Any, held_before: list, held_after: list, notes: list[str], output: Path | None) -> None:
    from rich.table import Table

    from ..calibrate.parameters import display

    t = Table(title="parameters", header_style="bold", title_justify="left")
    for col in ("parameter", "start", "fitted", "± (1 σ)", "identified"):
        t.add_column(col, justify="left" if col == "parameter" else "right")
    for e in result.estimates:
        p = e.parameter
        rel = "" if e.relative_error is None or not e.identified else f"{e.relative_error * 100:.0f} %"
        t.add_row(p.path, display(p.unit, p.start) if p.given else "unset", display(p.unit, e.value), rel,
                  "yes" if e.identified else "[bold red]no[/]")
    console.print(t)
    for title, pairs in (("fitted runs: prediction error (predicted − measured) / measured",
                          list(zip(result.before, result.after))),
                         ("held-out runs: prediction error", list(zip(held_before, held_after)))):
        if not pairs:
            continue
        pt = Table(title=title, header_style="bold", title_justify="left")
        extra = [k for k in ("latency.p50", "latency.p99") if any(k in b.measured for b, _ in pairs)]
        for col in ("run", "IOPS before", "IOPS after", "latency before", "latency after",
                    *(f"{k[8:]} {w}" for k in extra for w in ("before", "after"))):
            pt.add_column(col, justify="left" if col == "run" else "right")
        for b, a in pairs:
            pt.add_row(b.label, _pct(b.errors.get("iops")), _pct(a.errors.get("iops")),
                       _pct(b.errors.get("latency.mean")), _pct(a.errors.get("latency.mean")),
                       *(_pct(p.errors.get(k)) for k in extra for p in (b, a)))
        console.print(pt)
    console.print(f"RMS of log(predicted / measured): {result.rms_before:.3f} before, {result.rms_after:.3f} after")
    for w in result.warnings:
        err_console.print(f"warning: {w}", markup=False, highlight=False, soft_wrap=True)
    for n in notes:
        err_console.print(f"note: {n}", markup=False, highlight=False, soft_wrap=True)
    if output is not None:
        console.print(f"calibration written to {output}")
