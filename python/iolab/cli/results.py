"""`iolab results`: Read the results database: list, show, export, delete."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path
from typing import Any, Optional

import typer

from ..errors import InputError
from .bench import DB_OPTION
from .command_line import Command, Group
from .common import JSON_OPTION, console, fold_path, print_json, wide_console

app = typer.Typer(help="Read the results database: list, show, export, delete.", no_args_is_help=True, cls=Group)

#: the columns of ``results export --csv``, one row per measured figure.
CSV_COLUMNS = ("run_id", "status", "started", "target", "sweep_id", "params", "job", "host", "direction",
               "metric", "value", "unit", "predicted", "ratio", "name", "rw", "bs", "iodepth", "numjobs")


def _open(db: Path | None, *, must_exist: bool = True) -> Any:
    """The results database at `db` (default: the user's); None when absent and not `must_exist`."""
    from ..service.results import open_results

    return open_results(db, must_exist=must_exist)


@app.command("list", cls=Command)
def list_(
    db: Optional[Path] = DB_OPTION,
    sweep: Optional[int] = typer.Option(None, "--sweep", metavar="ID", help="Only the runs of this sweep id."),
    limit: Optional[int] = typer.Option(None, "--limit", min=1, metavar="N", help="At most this many, newest first."),
    all_: bool = typer.Option(False, "--all", help="Failed runs too (hidden otherwise)."),
    json_: bool = JSON_OPTION,
) -> None:
    """List stored runs, newest first: what ran (name, rw, bs, depth) and its total figures."""
    from rich import box
    from rich.table import Table

    from ..units import format_duration, format_ops, format_rate

    from ..service.results import list_runs

    # a database named with --db must be there (a typo lists nothing otherwise); the
    # default one is absent until the first run, which is no error
    listed = list_runs(db, sweep=sweep, limit=limit, failed=all_, must_exist=db is not None)
    runs, hidden = list(listed.runs), listed.hidden_failed
    if json_:
        print_json(listed.to_json())
        return
    if not runs:
        console.print("no runs stored yet" if not hidden else "no runs that did not fail")
    else:
        with_params = any(r.params or r.sweep_id for r in runs)
        cells = []
        for r in runs:
            w = r.workload
            point = [", ".join(f"{k}={v}" for k, v in r.params.items()) + (f" (sweep {r.sweep_id})" if r.sweep_id else "")]
            cells.append([str(r.run_id), r.status, r.started[:16].replace("T", " "), w.name, w.rw, w.bs, w.depth,
                          *(point if with_params else []),
                          format_ops(r.iops).removesuffix(" IOPS") if r.iops is not None else "-",
                          format_rate(r.bandwidth) if r.bandwidth is not None else "-",
                          format_duration(r.latency_mean) if r.latency_mean is not None else "-"])
        cols = ["run", "status", "started (UTC)", "name", "rw", "bs", "depth×jobs", *(["point"] if with_params else []),
                "IOPS", "bandwidth", "mean lat"]
        t = Table(header_style="bold", box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
        numbers = ("run", "IOPS", "bandwidth", "mean lat")
        for col in cols:   # only a sweep point may fold; the target folds after a '/'
            t.add_column(col, justify="right" if col in numbers else "left", no_wrap=col != "point",
                         overflow="fold")
        used = sum(max(len(c), *(len(row[i]) for row in cells)) + 2 for i, c in enumerate(cols))  # padding, rule
        room = console.width - used - 2 if console.is_terminal else None
        beside = room is None or room >= 16   # else each target goes on a line of its own below
        if beside:
            t.add_column("target", no_wrap=True, overflow="fold")
        for row, r in zip(cells, runs):
            t.add_row(*row, *([fold_path(r.target or "", room)] if beside else []))
        # On a terminal the target folds after a '/'; in a pipe every row is one whole line.
        (console if console.is_terminal else wide_console()).print(t)
        if not beside:
            for r in runs:
                console.print(fold_path(f"run {r.run_id} target: {r.target or '-'}", console.width), markup=False,
                              highlight=False)
    if hidden:
        console.print(f"{hidden} failed run{'s' if hidden != 1 else ''} not shown: --all shows them")


@app.command("show", cls=Command)
def show(
    run_id: int = typer.Argument(..., metavar="ID", help="The run's id (see `iolab results list`)."),
    db: Optional[Path] = DB_OPTION,
    jobfile: bool = typer.Option(False, "--jobfile", help="Print only the fio job file the run ran."),
    json_: bool = JSON_OPTION,
) -> None:
    """Show one run: its figures, the prediction beside them, where and how it ran."""
    if jobfile and json_:
        raise InputError("give --jobfile or --json, not both (--jobfile prints the job file alone; --json has it "
                         "under jobfile)", field="--jobfile")
    store = _open(db)
    assert store is not None
    with store:
        record = store.load(run_id)
        if jobfile:
            sys.stdout.write(record.jobfile)
            return
        if json_:
            doc = record.to_json()
            doc["jobfile"] = record.jobfile
            doc["fio_argv"] = list(record.fio_argv)
            print_json(doc)
            return
        from ..bench.console import record_view

        for part in record_view(record, store.path):
            console.print(part)
    console.print(f"[bold]started[/] {record.started}  [bold]ended[/] {record.ended}  "
                  f"[bold]host[/] {record.host}  [bold]kernel[/] {record.kernel}  [bold]fio[/] {record.fio_version}")
    if record.mount_options:
        console.print(f"[bold]mount options[/] {record.mount_options}")
    if record.error:
        console.print(f"[bold red]error[/] {record.error}")
    console.print("[bold]job file[/]")
    console.print(record.jobfile, markup=False, highlight=False)


@app.command("export", cls=Command)
def export(
    run_ids: Optional[list[int]] = typer.Argument(None, metavar="[ID...]", help="Runs to export (default: all)."),
    csv_: bool = typer.Option(False, "--csv", help="CSV, one row per measured figure."),
    json_: bool = typer.Option(False, "--json", help="JSON, one full record per run."),
    db: Optional[Path] = DB_OPTION,
) -> None:
    """Export runs as CSV (one row per figure) or JSON (one record per run) on stdout."""
    from ..bench.compare import predicted_figure, rows

    if csv_ == json_:
        raise InputError("choose one format: --csv or --json", field="--csv/--json")
    store = _open(db)
    assert store is not None
    with store:
        from ..bench.store import refuse_repeats

        refuse_repeats(run_ids or [], "ID")
        ids = list(run_ids or store.ids())
        records = [store.load(i) for i in ids]  # unknown ids fail before any output
        if json_:
            docs = []
            for r in records:
                doc = r.to_json()
                doc["jobfile"] = r.jobfile
                if r.predicted is not None and r.measured is not None:
                    doc["comparison"] = [{"scope": c.scope, "figure": c.figure, "measured": c.measured,
                                          "predicted": c.predicted, "ratio": c.ratio}
                                         for c in rows(doc, r.predicted)]
                docs.append(doc)
            print_json({"runs": docs})
            return
        predictions = {r.run_id: r.predicted for r in records}
        from ..bench.workload import job_workload, workload_of

        whole = {r.run_id: workload_of(r.jobfile) for r in records}
        per_job = {r.run_id: job_workload(r.jobfile) for r in records}
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(CSV_COLUMNS)
        for row in store.measurement_rows(ids):
            guess = None if row["host"] else predicted_figure(predictions.get(row["run_id"]), job=row["job"],
                                                              direction=row["direction"], metric=row["metric"])
            ratio = row["value"] / guess if guess and row["value"] is not None else None
            writer.writerow([row["run_id"], row["status"], row["started"], row["target"], row["sweep_id"],
                             json.dumps(json.loads(row["params"]), sort_keys=True), row["job"] or "",
                             row["host"] or "", row["direction"], row["metric"], repr(row["value"]), row["unit"],
                             "" if guess is None else repr(guess), "" if ratio is None else f"{ratio:.4g}",
                             *_workload_cells(per_job[row["run_id"]].get(row["job"] or "", whole[row["run_id"]]))])
        sys.stdout.write(buffer.getvalue())


def _workload_cells(w: Any) -> list[str]:
    return [w.name, w.rw, w.bs, w.iodepth, w.numjobs]


@app.command("delete", cls=Command)
def delete(
    run_id: int = typer.Argument(..., metavar="ID", help="The run to delete."),
    db: Optional[Path] = DB_OPTION,
    json_: bool = JSON_OPTION,
) -> None:
    """Delete one run and everything stored with it."""
    store = _open(db)
    assert store is not None
    with store:
        store.delete(run_id)
    if json_:
        print_json({"deleted": run_id})
    else:
        console.print(f"deleted run {run_id}")
