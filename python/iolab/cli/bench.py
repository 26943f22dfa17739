"""`iolab bench`: Benchmark real storage with fio, safely; store every run.

``bench run`` runs a scenario's jobs, a fio job file, or fio-style flags against a target
(a directory where iolab creates its own files, or with ``--destructive`` a file or
device), here or on every ``--client`` host, once or as a ``--sweep``; ``bench server``
starts a fio server for multi-host runs.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Optional

import typer
from rich.table import Table

from ..bench.compare import check_clients, rows
from ..bench.executor import ProcessExecutor
from ..bench.hosts import DEFAULT_PORT, Host, parse_host, read_clients, server_argv, unique
from ..bench.jobs import OVERRIDABLE, Settings, override, parse_option
from ..bench.progress import LiveView, QuietView
from ..bench.record import RunRecord
from ..bench.runner import Bench, Request
from ..bench.store import ResultsStore
from ..bench.sweep import Sweep, parse_axes, percentile_key, run_sweep
from ..errors import InputError, RunError
from ..fio import FioJob, parse_jobfile
from ..units import format_duration, format_ops, format_rate, parse_duration
from .common import CATALOG_OPTION, JSON_OPTION, console, err_console, print_json

app = typer.Typer(help="Benchmark real storage with fio, safely; store every run.", no_args_is_help=True)

#: makes the fio executor; tests put a fake in its place.
make_executor: Any = ProcessExecutor


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """While fio runs, SIGTERM stops it like Ctrl-C (fio stopped, files removed, run stored)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


DB_OPTION = typer.Option(None, "--db", help="The results database (default: results.db in the user's data directory).",
                         show_default=False)


def _scenario_jobs(path: Path, catalog: list[Path], volume: str | None) -> tuple[tuple[FioJob, ...], Any]:
    from ..scenario import load_scenario

    scenario = load_scenario(path, catalog)
    volumes = sorted({j.volume for j in scenario.jobs})
    if volume is None and len(volumes) > 1:
        raise InputError(f"the jobs use volumes {', '.join(volumes)}: pick the one --target stands for "
                         "with --volume NAME", file=str(path), field="jobs")
    if volume is not None and volume not in volumes:
        raise InputError(f"no job uses volume {volume!r} (jobs use: {', '.join(volumes)})", field="--volume")
    chosen = tuple(j for j in scenario.jobs if volume is None or j.volume == volume)
    scenario = scenario.replace_jobs(chosen)
    return tuple(j.fio for j in chosen), scenario


def _source_jobs(source: Path | None, catalog: list[Path], volume: str | None) -> tuple[tuple[FioJob, ...], Any]:
    """The jobs to run and the scenario describing the target (None for a job file or flags)."""
    if source is None:
        return (FioJob(name="bench"),), None
    if source.suffix.lower() in (".yaml", ".yml"):
        return _scenario_jobs(source, catalog, volume)
    try:
        text = source.read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read the job file: {getattr(e, 'strerror', None) or e}", file=str(source)) from None
    return tuple(parse_jobfile(text, source=str(source))), None


def _hosts(clients: list[str], clients_file: Path | None) -> tuple[Host, ...]:
    hosts = [parse_host(c) for c in clients]
    if clients_file is not None:
        try:
            text = clients_file.read_text()
        except OSError as e:
            raise InputError(f"cannot read it: {e.strerror}", file=str(clients_file)) from None
        hosts += read_clients(text, file=str(clients_file))
    return tuple(unique(hosts))


def _duration(text: str | None, option: str, *, positive: bool) -> float | None:
    if text is None:
        return None
    try:
        value = parse_duration(text)
    except InputError as e:
        raise InputError(e.message, field=option) from None
    if positive and value <= 0:
        raise InputError(f"must be more than 0 s, got {text!r}", field=option)
    return value


# -- output ------------------------------------------------------------------------------------

def _lat(latency: dict, key: str) -> str:
    value = latency.get(key)
    return format_duration(value) if value is not None else "-"


def _ops(iops: float) -> str:
    return format_ops(iops).removesuffix(" IOPS")


#: latency columns of the tables (the JSON has them all).
SHOWN = ("mean", "p50", "p99", "p99.9")


def figures_table(doc: dict, *, title: str | None = None) -> Table:
    """Measured figures of a run's JSON: total, read, write, each job and host."""
    t = Table(title=title, header_style="bold", title_justify="left", box=None, pad_edge=False)
    t.add_column("", no_wrap=True)
    for col in ("IOPS", "bandwidth", *(k if k != "mean" else "mean lat" for k in SHOWN)):
        t.add_column(col, justify="right", no_wrap=True)

    def add(label: str, part: dict) -> None:
        lat = part.get("latency", {})
        t.add_row(label, _ops(part["iops"]), format_rate(part["bandwidth"]), *(_lat(lat, k) for k in SHOWN))

    if "iops" in doc:
        add("total", doc)
        for d in ("read", "write"):
            if d in doc:
                add(f"  {d}", doc[d])
    hosts = doc.get("hosts", [])
    if len(doc.get("jobs", [])) > max(1, len(hosts)):
        for j in doc.get("jobs", []):
            add(f"job {j['name']}" + (f" @ {j['host']}" if j.get("host") else ""), j)
    for h in hosts:
        if "iops" in h:
            add(f"host {h['host']}", h)
        else:
            t.add_row(f"host {h['host']}", f"[red]{h['status']}[/]: {h.get('error', '')}")
    return t


def comparison_table(doc: dict) -> Table:
    t = Table(title="measured beside predicted", header_style="bold", title_justify="left", box=None,
              pad_edge=False)
    for col in ("", "figure", "measured", "predicted", "measured/predicted"):
        t.add_column(col, justify="left" if col in ("", "figure") else "right")
    show = {"iops": format_ops, "bandwidth": format_rate, "latency.mean": format_duration}
    for r in rows(doc, doc["predicted"]):
        fmt = show[r.figure]
        t.add_row(r.scope, r.figure, fmt(r.measured) if r.measured is not None else "-",
                  fmt(r.predicted) if r.predicted is not None else "-",
                  f"{r.ratio:.2f}" if r.ratio is not None else "-")
    return t


def print_record(record: RunRecord, db: Path) -> None:
    doc = record.to_json()
    head = f"[bold]run {record.run_id}[/] {record.status}"
    if record.target:
        head += f" on {record.target}"
    if record.fstype:
        head += f" ({record.fstype})"
    console.print(head)
    if record.measured is not None or record.hosts:
        console.print(figures_table(doc))
    if record.predicted is not None and record.measured is not None:
        console.print(comparison_table(doc))
    console.print(f"[dim]stored in {db}[/]")


def print_sweep(sweep: Sweep, db: Path, latency_target: float | None, percentile: float) -> None:
    t = Table(title=f"sweep {sweep.sweep_id}", header_style="bold", title_justify="left")
    predicted = any(p.predicted for p in sweep.curve)
    cols = ["point", "IOPS", "bandwidth", "mean lat", "p99", "run"] + (["predicted IOPS", "ratio"] if predicted else [])
    for col in cols:
        t.add_column(col, justify="left" if col == "point" else "right")
    for p in sweep.curve:
        mark = " ◀ knee" if sweep.knee is p else ""
        row = [p.label + mark, _ops(p.iops), format_rate(p.bandwidth), _lat(p.latency, "mean"),
               _lat(p.latency, "p99"), f"{p.run_id} {p.status if p.status != 'ok' else ''}".strip()]
        if predicted:
            piops = (p.predicted or {}).get("iops")
            row += [_ops(piops) if piops else "-", f"{p.iops / piops:.2f}" if piops else "-"]
        t.add_row(*row)
    console.print(t)
    if sweep.knee is None:
        why = (f"no point meets p{percentile:g} ≤ {format_duration(latency_target)}" if latency_target is not None
               else "IOPS kept growing by 10 % or more (or latency fell) between points")
        console.print(f"[bold]Knee:[/] none — {why}.")
    elif latency_target is not None:
        console.print(f"[bold]Knee:[/] {sweep.knee.label}: the highest IOPS ({format_ops(sweep.knee.iops)}) "
                      f"whose p{percentile:g} latency meets {format_duration(latency_target)}.")
    else:
        console.print(f"[bold]Knee:[/] {sweep.knee.label} ({format_ops(sweep.knee.iops)}): past it IOPS grew "
                      "less than 10 % while latency grew.")
    console.print(f"[dim]stored in {db}[/]")


def _plot(path: Path, sweep: Sweep, title: str) -> None:
    from ..plot import CurvePoint, latency_curve

    def pt(p: Any, iops: float, lat: float | None) -> CurvePoint:
        return CurvePoint(p.label, iops, lat or 0.0)

    measured = [pt(p, p.iops, p.latency.get("mean")) for p in sweep.curve if p.status == "ok"]
    series = [("measured", measured)]
    predicted = [pt(p, p.predicted["iops"], p.predicted.get("latency", {}).get("mean"))
                 for p in sweep.curve if p.predicted and p.predicted.get("iops")]
    if predicted:
        series.append(("predicted", predicted))
    knee = pt(sweep.knee, sweep.knee.iops, sweep.knee.latency.get("mean")) if sweep.knee else None
    latency_curve(path, series, title=title, knee=knee)


# -- commands ----------------------------------------------------------------------------------

@app.command("run")
def run(
    source: Optional[Path] = typer.Argument(None, help="A scenario (.yaml) or a fio job file; omit for fio-style flags."),
    target: str = typer.Option(..., "--target", help="Where to run: a directory (iolab creates and removes its "
                               "own files there), or a file or device (writes need --destructive)."),
    rw: Optional[str] = typer.Option(None, "--rw", help="fio rw: read, write, randread, randwrite, rw, randrw, ..."),
    bs: Optional[str] = typer.Option(None, "--bs", help="Block size, fio's units (4k = 4096 bytes)."),
    iodepth: Optional[str] = typer.Option(None, "--iodepth", help="IOs in flight per job (async engines)."),
    numjobs: Optional[str] = typer.Option(None, "--numjobs", help="Clones of each job."),
    size: Optional[str] = typer.Option(None, "--size", help="Bytes of file per job, fio's units (default 1g)."),
    rwmixread: Optional[str] = typer.Option(None, "--rwmixread", help="Percent reads in a mixed pattern."),
    ioengine: Optional[str] = typer.Option(None, "--ioengine", help="fio ioengine (psync, libaio, io_uring, ...)."),
    runtime: Optional[str] = typer.Option(None, "--runtime", help="How long each job runs (30, 500ms, 2m); "
                                          "default: the job's own, else 30 s."),
    ramp: Optional[str] = typer.Option(None, "--ramp", help="Warm-up before measuring (fio's ramp_time)."),
    direct: Optional[bool] = typer.Option(None, "--direct/--no-direct", help="O_DIRECT (default: the job's own, else on).",
                                          show_default=False),
    sweep: Optional[list[str]] = typer.Option(None, "--sweep", help="Run a curve: iodepth=1,2,4 (also numjobs=, "
                                              "bs=, rwmixread=); several make a product.", show_default=False),
    latency_target: Optional[str] = typer.Option(None, "--latency-target", help="Knee: the highest IOPS whose "
                                                 "latency at --latency-percentile meets this (e.g. 2ms)."),
    latency_percentile: float = typer.Option(99.0, "--latency-percentile", help="50, 90, 99, 99.9 or 99.99."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="With --sweep: draw latency against IOPS (.png/.svg)."),
    client: Optional[list[str]] = typer.Option(None, "--client", help="Run on this fio server, HOST[:PORT] "
                                               "(repeatable).", show_default=False),
    clients: Optional[Path] = typer.Option(None, "--clients", help="A file of fio servers, one HOST[:PORT] a line."),
    volume: Optional[str] = typer.Option(None, "--volume", help="The scenario volume --target stands for."),
    destructive: bool = typer.Option(False, "--destructive", help="Allow writes to an existing file or an "
                                     "unmounted device (destroys its data)."),
    db: Optional[Path] = DB_OPTION,
    fio: str = typer.Option("fio", "--fio", help="The fio program to run."),
    catalog: Optional[list[Path]] = CATALOG_OPTION,
    json_: bool = JSON_OPTION,
) -> None:
    """Run fio against a target, store the run, and set it beside the prediction."""
    from ..plot import check_plot_path

    if plot is not None:
        if not sweep:
            raise InputError("a plot draws a sweep's curve: add --sweep", field="--plot")
        check_plot_path(plot)
    jobs, scenario = _source_jobs(source, catalog or [], volume)
    flags = {"rw": rw, "bs": bs, "iodepth": iodepth, "numjobs": numjobs, "size": size,
             "rwmixread": rwmixread, "ioengine": ioengine}
    jobs = override(jobs, {k: parse_option(k, v) for k, v in flags.items() if v is not None and k in OVERRIDABLE})
    hosts = _hosts(client or [], clients)
    if scenario is not None:
        check_clients(scenario, len(hosts) or 1, remote=bool(hosts))
    axes = parse_axes(sweep or [])
    target_s = _duration(latency_target, "--latency-target", positive=True)
    if target_s is not None:
        if not axes:
            raise InputError("a latency target picks a sweep's knee: add --sweep", field="--latency-target")
        percentile_key(latency_percentile)
    settings = Settings(runtime=_duration(runtime, "--runtime", positive=True),
                        ramp=_duration(ramp, "--ramp", positive=False), direct=direct, destructive=destructive)
    request = Request(jobs, target, settings, hosts, scenario)
    live = not json_ and err_console.is_terminal
    view = LiveView(err_console) if live else QuietView(lambda s: print(s, file=sys.stderr))
    with ResultsStore(db) as store:
        bench = Bench(store, executor=make_executor(), view=view, fio=fio)
        try:
            with _sigterm_as_interrupt():
                if axes:
                    result: Any = run_sweep(bench, request, axes, latency_target=target_s,
                                            percentile=latency_percentile)
                else:
                    result = bench.run(request)
        finally:
            view.close()
        if axes and plot is not None and any(p.status == "ok" for p in result.curve):
            _plot(plot, result, f"{source.name if source else 'bench'}: latency vs IOPS")
        if json_:
            doc = result.to_json()
            if plot is not None:
                doc["plot"] = str(plot)
            print_json(doc)
        elif axes:
            print_sweep(result, store.path, target_s, latency_percentile)
            if plot is not None:
                console.print(f"plot written to {plot}")
        else:
            print_record(result, store.path)
    status = result.status
    if status == "interrupted":
        print("interrupted: fio stopped, its files removed, the run stored as interrupted", file=sys.stderr)
        raise typer.Exit(130)
    if status == "failed":
        records = result.records if axes else (result,)
        failed = [r for r in records if r.status == "failed"]
        raise RunError("; ".join(f"run {r.run_id}: {r.error}" for r in failed))


@app.command("server")
def server(
    bind: str = typer.Option(..., "--bind", help="The address to listen on: a private one (fio's server has no "
                             "authentication)."),
    port: int = typer.Option(DEFAULT_PORT, "--port", help="TCP port."),
    fio: str = typer.Option("fio", "--fio", help="The fio program to run."),
) -> None:
    """Run a fio server in the foreground for multi-host runs (Ctrl-C stops it)."""
    argv = server_argv(fio, bind, port)
    err_console.print(f"fio server listening on {bind} port {port}; Ctrl-C stops it")
    with _sigterm_as_interrupt():
        done = make_executor().run(argv, lambda line: err_console.print(line, markup=False, highlight=False))
    if done.interrupted:
        raise typer.Exit(130)
    if done.returncode != 0:
        raise RunError(f"the fio server stopped (exit {done.returncode}): {done.stderr.strip() or done.stdout.strip()}")


__all__ = ["app", "figures_table", "comparison_table", "print_record"]
