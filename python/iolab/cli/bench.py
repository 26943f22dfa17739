"""`iolab bench`: Benchmark real storage with fio, safely; store every run.

``bench run`` runs a scenario's jobs, a fio job file, or fio-style flags against a target
(a directory where iolab creates its own files, or with ``--destructive`` a file or
device), here or on every ``--client`` host, once or as a ``--sweep``; ``bench server``
starts a fio server for multi-host runs. The library is imported when a command runs, so
other commands start fast.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Optional

import typer

from ..errors import InputError, RunError
from ..filekind import expect
from ..input_warnings import flag_traps, jobfile_traps, traps_of, unique
from .pairing import refuse_alone
from .command_line import Command, Group
from .common import CATALOG_OPTION, JSON_OPTION, console, err_console, print_json, warn
from .interrupts import Interrupted, interrupts_raise

app = typer.Typer(help="Benchmark real storage with fio, safely; store every run.", no_args_is_help=True, cls=Group)

#: makes the fio executor (None: the real one); tests put a fake in its place.
make_executor: Any = None

DEFAULT_PORT = 8765  # fio's; checked against iolab.bench.hosts by the tests


def _executor() -> Any:
    if make_executor is not None:
        return make_executor()
    from ..bench.executor import ProcessExecutor

    return ProcessExecutor()


#: the fio patterns that mix reads and writes (the ones rwmixread applies to).
MIXED = ("rw", "randrw", "readwrite")

DB_OPTION = typer.Option(None, "--db", metavar="PATH", help="The results database (default: results.db in the user's data directory).",
                         show_default=False)


# -- commands ----------------------------------------------------------------------------------

@app.command("run", cls=Command)
def run(
    source: Optional[Path] = typer.Argument(None, help="A scenario (.yaml) or a fio job file; omit for fio-style flags."),
    target: str = typer.Option(..., "--target", metavar="PATH", help="Where to run: a directory (iolab creates and removes its "
                               "own files there), or a file or device (writes need --destructive)."),
    rw: Optional[str] = typer.Option(None, "--rw", metavar="RW", help="fio rw: read, write, randread, randwrite, rw, randrw, ..."),
    bs: Optional[str] = typer.Option(None, "--bs", metavar="SIZE", help="Block size, fio's units (4k = 4096 bytes)."),
    iodepth: Optional[str] = typer.Option(None, "--iodepth", metavar="N", help="IOs in flight per job (async engines)."),
    numjobs: Optional[str] = typer.Option(None, "--numjobs", metavar="N", help="Clones of each job."),
    size: Optional[str] = typer.Option(None, "--size", metavar="SIZE", help="Bytes of file per job, fio's units (default 1g)."),
    rwmixread: Optional[str] = typer.Option(None, "--rwmixread", metavar="PCT", help="Percent reads in a mixed pattern."),
    ioengine: Optional[str] = typer.Option(None, "--ioengine", metavar="NAME", help="fio ioengine (psync, libaio, io_uring, ...)."),
    runtime: Optional[str] = typer.Option(None, "--runtime", metavar="T", help="How long each job runs (30, 500ms, 2m); "
                                          "default: the job's own, else 30 s."),
    ramp: Optional[str] = typer.Option(None, "--ramp", metavar="T", help="Warm-up before measuring (fio's ramp_time)."),
    direct: Optional[bool] = typer.Option(None, "--direct/--no-direct", help="O_DIRECT (default: the job's own, else on).",
                                          show_default=False),
    sweep: Optional[list[str]] = typer.Option(None, "--sweep", metavar="NAME=V1,V2,...", help="Run a curve: iodepth=1,2,4 (also numjobs=, "
                                              "bs=, rwmixread=); several make a product.", show_default=False),
    latency_target: Optional[str] = typer.Option(None, "--latency-target", metavar="T", help="Knee: the highest IOPS whose "
                                                 "latency at --latency-percentile meets this (e.g. 2ms)."),
    latency_percentile: Optional[float] = typer.Option(None, "--latency-percentile", metavar="P", help="The percentile "
                                                       "--latency-target bounds: 50, 90, 99 (default), 99.9 or 99.99.",
                                                       show_default=False),
    plot: Optional[Path] = typer.Option(None, "--plot", metavar="FILE", help="With --sweep: draw latency against IOPS (.png/.svg)."),
    client: Optional[list[str]] = typer.Option(None, "--client", metavar="HOST[:PORT]", help="Run on this fio server, HOST[:PORT] "
                                               "(repeatable).", show_default=False),
    clients: Optional[Path] = typer.Option(None, "--clients", metavar="FILE", help="A file of fio servers, one HOST[:PORT] a line."),
    volume: Optional[str] = typer.Option(None, "--volume", metavar="NAME", help="The scenario volume --target stands for."),
    destructive: bool = typer.Option(False, "--destructive", help="Allow writes to an existing file or an "
                                     "unmounted device (destroys its data)."),
    db: Optional[Path] = DB_OPTION,
    fio: str = typer.Option("fio", "--fio", metavar="PROGRAM", help="The fio program to run."),
    catalog: Optional[list[Path]] = CATALOG_OPTION,
    json_: bool = JSON_OPTION,
) -> None:
    """Run fio against a target, store the run, and set it beside the prediction."""
    from ..bench.compare import check_clients
    from ..bench.jobs import OVERRIDABLE, Settings, override, parse_option
    from ..bench.progress import LiveView, QuietView
    from ..bench.console import plot_sweep, record_view, sweep_view
    from ..bench.runner import Bench, Request
    from ..bench.source import duration_option, load_hosts, load_jobs
    from ..bench.store import ResultsStore
    from ..bench.sweep import parse_axes, percentile_key, run_sweep
    from ..plot import check_plot_path

    if plot is not None:
        if not sweep:
            raise InputError("a plot draws a sweep's curve: add --sweep", field="--plot")
        check_plot_path(plot)
    if source is not None:
        expect(source, ("scenario", "fio-jobs"))
    if source is None or source.suffix.lower() not in (".yaml", ".yml"):
        refuse_alone("--volume", volume, "with a scenario file (the scenario volume --target stands for)")
        refuse_alone("--catalog", catalog, "with a scenario file (whose ids it adds to or overrides)")
    jobs, scenario = load_jobs(source, catalog or [], volume)
    flags = {"rw": rw, "bs": bs, "iodepth": iodepth, "numjobs": numjobs, "size": size,
             "rwmixread": rwmixread, "ioengine": ioengine}
    jobs = override(jobs, {k: parse_option(k, v) for k, v in flags.items() if v is not None and k in OVERRIDABLE})
    from_source = traps_of(scenario) if scenario is not None else jobfile_traps(source) if source else []
    # An option a flag overrides is not warned about where the source wrote it: the flag
    # decides (the iodepth warning is the jobs' as they will run, so --ioengine decides it too).
    replaced = {k for k, v in flags.items() if v is not None} | ({"iodepth"} if ioengine is not None else set())
    from_source = [t for t in from_source if (t.field or "").rpartition(".")[2] not in replaced]
    warn(unique([*from_source, *flag_traps(flags, jobs)]))
    hosts = load_hosts(client or [], clients)
    if scenario is not None:
        check_clients(scenario, len(hosts) or 1, remote=bool(hosts))
    axes = parse_axes(sweep or [])
    if not any(j.rw in MIXED for j in jobs):  # fio reads rwmixread only for a mixed pattern
        applies = "to a mixed pattern (--rw rw or randrw), and no job here mixes reads and writes"
        refuse_alone("--rwmixread", rwmixread, applies)
        if "rwmixread" in axes:
            raise InputError(f"rwmixread has no effect here: it applies {applies}", field="--sweep")
    target_s = duration_option(latency_target, "--latency-target", positive=True)
    if target_s is None:
        refuse_alone("--latency-percentile", latency_percentile, "with --latency-target T (the percentile it bounds)")
    latency_percentile = 99.0 if latency_percentile is None else latency_percentile
    if target_s is not None:
        if not axes:
            raise InputError("a latency target picks a sweep's knee: add --sweep", field="--latency-target")
        percentile_key(latency_percentile)
    from ..fio.job import LIMITS

    settings = Settings(runtime=duration_option(runtime, "--runtime", positive=True, most=LIMITS["runtime"]),
                        ramp=duration_option(ramp, "--ramp", positive=False, most=LIMITS["ramp_time"]),
                        direct=direct, destructive=destructive)
    request = Request(jobs, target, settings, hosts, scenario)
    live = not json_ and err_console.is_terminal
    view = LiveView(err_console) if live else QuietView(lambda s: print(s, file=sys.stderr))
    with ResultsStore(db) as store:
        bench = Bench(store, executor=_executor(), view=view, fio=fio)
        try:
            with interrupts_raise():
                if axes:
                    result: Any = run_sweep(bench, request, axes, latency_target=target_s,
                                            percentile=latency_percentile)
                else:
                    result = bench.run(request)
        finally:
            view.close()
        plotted = axes and plot is not None and any(p.status == "ok" for p in result.curve)
        if plotted:
            plot_sweep(plot, result, f"{source.name if source else 'bench'}: latency vs IOPS")
        if json_:
            doc = result.to_json()
            if plotted:
                doc["plot"] = str(plot)
            print_json(doc)
        elif axes:
            for part in sweep_view(result, store.path, target_s, latency_percentile):
                console.print(part)
            if plotted:
                console.print(f"plot written to {plot}")
        else:
            for part in record_view(result, store.path):
                console.print(part)
    status = result.status
    if status == "interrupted":
        raise Interrupted("fio stopped, its files removed, the run stored as interrupted")
    if status == "failed":
        records = result.records if axes else (result,)
        failed = [r for r in records if r.status == "failed"]
        raise RunError("; ".join(f"run {r.run_id}: {r.error}" for r in failed))


@app.command("clean", cls=Command)
def clean(
    target: str = typer.Option(..., "--target", metavar="DIR", help="The directory a killed run may have left its "
                               "files in."),
    json_: bool = JSON_OPTION,
) -> None:
    """Remove the files killed iolab runs left: their data files in DIR, their scratch folders."""
    import os

    from ..bench.leftovers import remove_scratch, remove_target_files
    from ..units import format_size

    if not os.path.isdir(target):
        what = "does not exist" if not os.path.lexists(target) else "is not a directory"
        raise InputError(f"{target} {what}: name the directory the runs used as --target", field="--target")
    removed = remove_target_files(target)
    scratch = remove_scratch()
    if json_:
        print_json({"target": os.path.abspath(target),
                    "removed": [{"path": str(f.path), "size": f.size, "pid": f.pid} for f in removed],
                    "scratch": [str(p) for p in scratch]})
        return
    for f in removed:
        console.print(f"removed {f.path} ({format_size(f.size)}), left by iolab process {f.pid}",
                      markup=False, highlight=False, soft_wrap=True)
    for p in scratch:
        console.print(f"removed scratch folder {p}", markup=False, highlight=False, soft_wrap=True)
    if not removed and not scratch:
        console.print(f"nothing to remove: no killed iolab run left files in {target}", markup=False,
                      highlight=False, soft_wrap=True)


@app.command("server", cls=Command)
def server(
    bind: str = typer.Option(..., "--bind", metavar="ADDR", help="The address to listen on: a private one (fio's server has no "
                             "authentication)."),
    port: int = typer.Option(DEFAULT_PORT, "--port", metavar="PORT", help="TCP port."),
    fio: str = typer.Option("fio", "--fio", metavar="PROGRAM", help="The fio program to run."),
) -> None:
    """Run a fio server in the foreground for multi-host runs (Ctrl-C stops it)."""
    from ..bench.hosts import server_argv

    argv = server_argv(fio, bind, port)
    err_console.print(f"fio server listening on {bind} port {port}; Ctrl-C stops it")
    with interrupts_raise():
        done = _executor().run(argv, lambda line: err_console.print(line, markup=False, highlight=False))
    if done.interrupted:
        raise Interrupted("the fio server stopped")
    if done.returncode != 0:
        raise RunError(f"the fio server stopped (exit {done.returncode}): {done.stderr.strip() or done.stdout.strip()}")


__all__ = ["app", "DB_OPTION"]
