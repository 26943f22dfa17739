"""`iolab simulate`: a scenario event by event — latency percentiles and behaviour over time."""

from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path
from typing import Optional

import typer
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..errors import SchemaError
from ..plot import check_plot_path, simulation_charts
from ..units import format_duration, format_ops, format_rate, parse_duration
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..sim import Simulation

DEFAULT_IOS = 1_000_000  # as iolab.sim.DEFAULT_IOS (a test checks they agree)

from .common import CATALOG_OPTION, JSON_OPTION, console, err_console, print_json

PERCENTILES = ("mean", "p50", "p90", "p99", "p99.9", "p99.99")


def _duration(text: str | None, option: str) -> float | None:
    if text is None:
        return None
    try:
        return parse_duration(text)
    except SchemaError:
        raise
    except ValueError as e:
        raise SchemaError(str(e), field=option) from None


def bottleneck(sim: Simulation) -> dict:
    """As predict names it: the busiest cap when at least 90 % busy; else a slot limit whose
    slots are nearly always all in use; else ``concurrency``."""
    from ..analytic import SATURATION

    caps = [r for r in sim.resources if r.slots is None]
    slots = [r for r in sim.resources if r.slots is not None]
    top = max(caps, key=lambda r: r.utilization, default=None)
    if top is not None and top.utilization >= SATURATION:
        return {"resource": top.resource, "kind": top.kind, "utilization": top.utilization}
    full = max(slots, key=lambda r: r.utilization, default=None)
    if full is not None and full.utilization >= 0.99:
        return {"resource": full.resource, "kind": full.kind, "utilization": full.utilization}
    return {"resource": "concurrency", "kind": "concurrency", "utilization": top.utilization if top else 0.0}


def _print(sim: Simulation, path: Path) -> None:
    state = " [yellow](partial: stopped early)[/]" if sim.partial else ""
    console.print(f"[bold]Simulation[/] of {path}: {sim.ios:,} IOs over {format_duration(sim.duration)} "
                  f"of simulated time, seed {sim.seed}{state}")
    t = Table(header_style="bold")
    for col in ("", "IOPS", "MB/s", *(f"{p} (ms)" for p in PERCENTILES)):
        t.add_column(col, justify="left" if not col else "right")
    rows = [("total", sim.total)] + [(d, s) for d, s in (("read", sim.read), ("write", sim.write)) if s]
    if len(sim.jobs) > 1:
        rows += [(f"job {j.name}", j) for j in sim.jobs]
    for name, s in rows:
        lat = s.latency.to_json()
        t.add_row(name, f"{s.iops:,.0f}", f"{s.bandwidth / 1e6:,.1f}",
                  *(f"{lat[k] * 1e3:.4g}" if lat.get(k) is not None else "-" for k in PERCENTILES))
    console.print(t)
    r = Table(title="resources", header_style="bold", title_justify="left")
    for col in ("resource", "kind", "utilization", "throttled (IO-seconds)"):
        r.add_column(col, justify="left" if col in ("resource", "kind") else "right")
    for res in sorted(sim.resources, key=lambda x: -x.utilization):
        r.add_row(res.resource, res.kind, f"{res.utilization:.1%}", f"{res.throttled:.3g}")
    console.print(r)
    b = bottleneck(sim)
    console.print(f"[bold]Bottleneck:[/] {b['resource']} ({b['kind']}, {b['utilization']:.1%})")
    for c in sim.cache:
        if c.hit_ratio is not None:
            console.print(f"host cache {c.resource}: {c.hit_ratio:.1%} of {c.lookups:,} reads hit")
    for c in sim.credits:
        if c.series:
            last = c.series[-1]
            console.print(f"credits of {c.resource}: {last.ops if last.ops is not None else last.bytes:,.0f} "
                          f"left at the end")
    if sim.confidence is not None:
        ci = sim.confidence
        console.print(f"95 % confidence over {len(sim.replications)} replications: IOPS "
                      f"{ci.iops[0]:,.0f}–{ci.iops[1]:,.0f}; mean {format_duration(ci.mean[0])}–"
                      f"{format_duration(ci.mean[1])}; p99 {format_duration(ci.p99[0])}–{format_duration(ci.p99[1])}")


def simulate(
    scenario: Path = typer.Argument(..., help="The scenario file (YAML)."),
    json_: bool = JSON_OPTION,
    ios: Optional[int] = typer.Option(None, "--ios", help=f"Measured IOs to simulate (default {DEFAULT_IOS:,})."),
    duration: Optional[str] = typer.Option(None, "--duration", help="Simulated time to measure, e.g. 30s, 45m."),
    ramp: Optional[str] = typer.Option(None, "--ramp", help="Simulated warm-up to discard (fio's ramp_time)."),
    seed: int = typer.Option(1, "--seed", help="Random seed: same seed, same output."),
    replications: int = typer.Option(1, "--replications", help="Independent runs (in parallel) for confidence intervals."),
    interval: Optional[str] = typer.Option(None, "--interval", help="Width of one point of the IOPS series."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Draw percentiles, the IOPS series and credits (.png/.svg)."),
    catalog: Optional[list[Path]] = CATALOG_OPTION,
) -> None:
    """Simulate a scenario event by event: latency percentiles and behaviour over time."""
    from ..compile import compile_scenario
    from ..phases import split
    from ..scenario import load_scenario
    from ..sim import simulate as run_simulation

    if ios is not None and duration is not None:
        raise SchemaError("give --ios or --duration, not both", field="--ios")
    if plot is not None:
        check_plot_path(plot)
    s = load_scenario(scenario, catalog or ())
    dur, rmp, ivl = _duration(duration, "--duration"), _duration(ramp, "--ramp"), _duration(interval, "--interval")
    phases = split(s)
    if len(phases) > 1:
        if plot is not None:
            raise SchemaError(f"--plot takes jobs that run together; this file runs in {len(phases)} phases "
                              "(stonewall, wait_for)", field="--plot")
        _simulate_phases(phases, scenario, json_, ios=ios, duration=dur, ramp=rmp, seed=seed, interval=ivl,
                         replications=replications)
        return
    network = compile_scenario(s)
    if rmp is None:
        rmp = max((j.fio.ramp_time or 0.0) for j in s.jobs)
    if ios is None and dur is None:
        runtimes = [j.fio.runtime for j in s.jobs if j.fio.runtime and j.fio.time_based]
        dur = max(runtimes) if runtimes else None
    cancel = threading.Event()
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGINT, lambda *_: cancel.set())
    show = not json_ and sys.stderr.isatty()
    try:
        if show:
            with Progress(TextColumn("simulating"), BarColumn(), TaskProgressColumn(), TextColumn("{task.fields[ios]} IOs"),
                          TimeElapsedColumn(), console=err_console, transient=True) as bar:
                task = bar.add_task("sim", total=1.0, ios="0")
                sim = run_simulation(network, ios=ios, duration=dur, ramp=rmp, seed=seed, interval=ivl,
                                     replications=replications, cancel=cancel,
                                     progress=lambda f, n: bar.update(task, completed=f, ios=f"{n:,}"))
        else:
            sim = run_simulation(network, ios=ios, duration=dur, ramp=rmp, seed=seed, interval=ivl,
                                 replications=replications, cancel=cancel)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    if plot is not None:
        lat = sim.total.latency.to_json()
        simulation_charts(plot, title=f"{scenario.name}: simulated latency",
                          percentiles=[(k, lat[k]) for k in PERCENTILES if lat.get(k) is not None],
                          series=[(p.t, p.iops) for p in sim.series],
                          credits=[(c.resource, [(p.t, p.ops if p.ops is not None else (p.bytes or 0.0))
                                                 for p in c.series]) for c in sim.credits])
    if json_:
        doc = sim.to_json()
        doc["bottleneck"] = bottleneck(sim)
        doc["outstanding"] = sum(j.population for j in network.jobs)
        if plot is not None:
            doc["plot"] = str(plot)
        print_json(doc)
        return
    _print(sim, scenario)
    if plot is not None:
        console.print(f"plot written to {plot}")


def _simulate_phases(phases: list, path: Path, json_: bool, *, ios: int | None, duration: float | None,
                     ramp: float | None, seed: int, interval: float | None, replications: int) -> None:
    """A file whose jobs run in phases: each phase simulated on its own (same options), then
    the file's total weighed by how long each phase runs."""
    from ..compile import compile_scenario
    from ..phases import combine_docs, duration as phase_duration
    from ..sim import simulate as run_simulation

    sims, docs, durations = [], [], []
    for phase in phases:
        s = phase.scenario
        network = compile_scenario(s)
        rmp = ramp if ramp is not None else max((j.fio.ramp_time or 0.0) for j in s.jobs)
        dur = duration
        if ios is None and dur is None:
            runtimes = [j.fio.runtime for j in s.jobs if j.fio.runtime and j.fio.time_based]
            dur = max(runtimes) if runtimes else None
        sim = run_simulation(network, ios=ios, duration=dur, ramp=rmp, seed=seed, interval=interval,
                             replications=replications)
        doc = sim.to_json()
        doc["bottleneck"] = bottleneck(sim)
        doc["outstanding"] = sum(j.population for j in network.jobs)
        sims.append(sim)
        docs.append(doc)
        durations.append(phase_duration(phase, {j["name"]: j["bandwidth"] for j in doc.get("jobs", [])}))
    total = combine_docs(docs, durations)
    if json_:
        print_json(total)
        return
    for phase, sim, d in zip(phases, sims, durations):
        lasts = f", {format_duration(d)}" if d is not None else ""
        console.print(f"[bold]Phase {phase.number}[/] ({', '.join(phase.jobs)}{lasts})")
        _print(sim, path)
    console.print(f"[bold]File total[/] ({len(phases)} phases one after another): {format_ops(total['iops'])}, "
                  f"{format_rate(total['bandwidth'])}, {format_duration(total['latency']['mean'])} mean latency.")
