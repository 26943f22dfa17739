"""`iolab calibrate`: fit a scenario's uncertain parameters to stored bench runs and write a
calibration file that predict and simulate take with --calibration."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from ..errors import InputError

if TYPE_CHECKING:
    from ..service.calibrate import CalibrateResult
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
    from ..service.calibrate import CalibrateOptions, calibrate_runs

    run_ids = parse_ids(runs, "--runs")
    held = parse_ids(validate, "--validate")
    if output is None:
        refuse_alone("--force", force, "with --output FILE (it replaces an existing one)")
    result = calibrate_runs(scenario, CalibrateOptions(
        runs=tuple(run_ids), sweep=sweep, validate=tuple(held), fit=tuple(fit_ or ()), hold=tuple(hold or ()),
        percentiles=percentiles, output=output, force=force, db=db, catalog=tuple(catalog or ())))
    if json_:
        print_json(result.to_json())
        return
    _print(result)


def _print(res: CalibrateResult) -> None:
    from rich.table import Table

    from ..calibrate.parameters import display

    result, held_before, held_after, notes, output = res.fit, res.held_before, res.held_after, res.notes, res.output
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
        for b, a in pairs:  # the run's totals, then each direction it measured: the JSON's own figures
            for scope in ("", "read.", "write."):
                if f"{scope}iops" not in b.errors and f"{scope}latency.mean" not in b.errors:
                    continue
                pt.add_row(b.label if not scope else f"  {scope[:-1]}", _pct(b.errors.get(f"{scope}iops")),
                           _pct(a.errors.get(f"{scope}iops")), _pct(b.errors.get(f"{scope}latency.mean")),
                           _pct(a.errors.get(f"{scope}latency.mean")),
                           *(_pct(p.errors.get(k)) if not scope else "" for k in extra for p in (b, a)))
        console.print(pt)
    console.print(f"RMS of log(predicted / measured): {result.rms_before:.3f} before, {result.rms_after:.3f} after")
    for w in result.warnings:
        err_console.print(f"warning: {w}", markup=False, highlight=False, soft_wrap=True)
    for n in notes:
        err_console.print(f"note: {n}", markup=False, highlight=False, soft_wrap=True)
    if output is not None:
        console.print(f"calibration written to {output}")
