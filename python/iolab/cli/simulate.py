"""`iolab simulate`: a scenario event by event — latency percentiles and behaviour over time."""

from __future__ import annotations

import math
import sys
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any, Optional

import typer
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..errors import SchemaError

from ..plot import check_plot_path, simulation_charts
from ..units import format_duration, format_ops, format_percent, format_rate
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..service.simulate import SimulatedPhase, SimulateResult
    from ..sim import Simulation

DEFAULT_IOS = 1_000_000  # as iolab.sim.DEFAULT_IOS (a test checks they agree)

from .common import ALL_APPLIES, ALL_OPTION, CALIBRATION_OPTION, CATALOG_OPTION, JSON_OPTION, console, err_console, fold, in_order, print_json, warn
from .interrupts import Interrupted, interrupts_set
from .pairing import refuse_alone

PERCENTILES = ("mean", "p50", "p90", "p99", "p99.9", "p99.99")


def _header(sim: Simulation, path: Path) -> str:
    state = " [yellow](partial: stopped early)[/]" if sim.partial else ""
    reps = sim.replications
    if len(reps) > 1:
        per = {r.ios for r in reps}
        ios = f"{reps[0].ios:,} IOs" if len(per) == 1 else f"{sim.ios / len(reps):,.0f} IOs on average"
        each = sum(r.duration for r in reps) / len(reps)
        return (f"[bold]Simulation[/] of {path}: {len(reps)} replications of {ios} ({sim.ios:,} in all), "
                f"{format_duration(each)} of simulated time each, seed {sim.seed}{state}")
    return (f"[bold]Simulation[/] of {path}: {sim.ios:,} IOs over {format_duration(sim.duration)} "
            f"of simulated time, seed {sim.seed}{state}")


def _minutes(seconds: float) -> str:
    """A --duration value a person types: whole minutes from two minutes on, else seconds."""
    import math as _m

    return f"{_m.ceil(seconds / 60)}m" if seconds >= 120 else f"{_m.ceil(seconds)}s"


def _merge(members: list[list]) -> list:
    """One row for alike resources: mean utilization, the range of busy, throttled added up."""
    n = len(members)
    busy = [m[3] for m in members]
    span = f"{format_percent(min(busy), 1)}" if f"{format_percent(min(busy), 1)}" == f"{format_percent(max(busy), 1)}" else f"{format_percent(min(busy), 1)}–{format_percent(max(busy), 1)}"
    return [members[0][0], members[0][1], sum(m[2] for m in members) / n, span, sum(m[4] for m in members),
            members[0][5]]


def _print(phase: SimulatedPhase, path: Path, show_all: bool = False) -> None:
    sim, loads = phase.sim, phase.loads
    console.print(_header(sim, path))
    t = Table(header_style="bold")
    for col in ("", "IOPS", "MB/s", *(f"{p} (ms)" for p in PERCENTILES)):
        t.add_column(col, justify="left" if not col else "right")
    rows = [("total", sim.total)] + [(d, s) for d, s in (("read", sim.read), ("write", sim.write)) if s]
    if len(sim.jobs) > 1:
        rows += [(f"job {j.name}", j) for j in in_order(list(sim.jobs), [j.name for j in phase.scenario.jobs],
                                                        lambda j: j.name)]
    for name, s in rows:
        lat = s.latency.to_json()
        t.add_row(name, f"{s.iops:,.0f}", f"{s.bandwidth / 1e6:,.1f}",
                  *(f"{lat[k] * 1e3:.4g}" if lat.get(k) is not None and math.isfinite(lat[k]) else "-"
                    for k in PERCENTILES))
    console.print(t)
    r = Table(title="resources", header_style="bold", title_justify="left")
    for col in ("resource", "kind", "utilization", "busy", "throttled (IO-seconds)"):
        r.add_column(col, justify="left" if col in ("resource", "kind") else "right")
    lines = [[res.resource, res.kind, loads.get(res.id, res.utilization), res.utilization, res.throttled,
              res.slots] for res in sorted(sim.resources, key=lambda x: -loads.get(x.id, x.utilization))]
    if not show_all:  # alike resources within a percentage point fold into one row
        lines = fold(lines, key=lambda row: (row[1], round(row[2] * 100), row[5]), merge=_merge)
    for name, kind, load, busy, throttled, slots in lines:
        shown = f"{load * slots:.3g}/{slots} slots" if slots is not None else f"{format_percent(load, 1)}"
        r.add_row(name, kind, shown, busy if isinstance(busy, str) else f"{format_percent(busy, 1)}", f"{throttled:.3g}")
    console.print(r)
    console.print("[dim]utilization: of the sustained rate, as predict gives it (over 100 % only on burst "
                  "credits); busy: share of the time serving[/]")
    from ..bottleneck import of_simulation

    console.print(f"[bold]Bottleneck:[/] {of_simulation(phase.network, sim, loads).sentence()}")
    used, network = phase.bursting, phase.network
    turned = {t.resource for t in phase.turns}
    for u in used:
        left = "" if u.left is None else f"; {format_percent(u.left, 1)} of its credits left at the end"
        if u.resource in turned:
            console.print(f"[bold yellow]Bursting:[/] {u.resource} ran on burst credits at {format_percent(u.load)} of its "
                          f"sustained rate on average over the run{left}.")
            continue
        from ..sim_reading import duration_needed

        empty = "" if u.empty_in is None else f", empty in about {format_duration(u.empty_in)} at this rate"
        need = duration_needed(sim, u)
        hint = (f"simulate --duration {_minutes(need)} to see the sustained rate past the bucket" if need is not None
                else "the bucket is not draining at this load")
        console.print(f"[bold yellow]Bursting:[/] {u.resource} ran on burst credits at {format_percent(u.load)} of its "
                      f"sustained rate{left}{empty}. These figures are above what it sustains "
                      f"(iolab predict gives both); {hint}.")
    phases = phase.credit_phases
    for turn in phase.turns[:1]:
        what = "emptied" if turn.event == "empties" else "filled"
        if not phases:
            console.print(f"[bold yellow]Credits:[/] the bucket of {turn.resource} {what} {format_duration(turn.t)} "
                          "into the run; the figures above blend before and after (a finer --interval separates "
                          "them).")
            continue
        words = {"burst": "on burst credits", "sustained": "at the sustained rate",
                 "refilling": "while the bucket refilled", "full": "with the bucket full"}
        parts = [f"{words[c.name]} {format_ops(c.iops)}, {format_rate(c.bandwidth)} for {format_duration(c.duration)}"
                 for c in phases]
        console.print(f"[bold yellow]Credits:[/] the bucket of {turn.resource} {what} {format_duration(turn.t)} into "
                      f"the run: {'; then '.join(parts)}. The totals above blend both.")
    for w in phase.warming:
        console.print(f"[bold yellow]Warming up:[/] {w.resource} started cold: {format_percent(w.measured, 1)} of reads hit so far "
                      f"(warm: {format_percent(w.warm)}), so the disks serve reads a warm cache would; predict gives the warm "
                      "steady state. Simulate longer (--duration) or set the volume's cache: warm to compare.")
    for c in sim.cache:
        if c.hit_ratio is not None:
            console.print(f"host cache {c.resource}: {format_percent(c.hit_ratio, 1)} of {c.lookups:,} reads hit")
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
    all_: bool = ALL_OPTION,
    catalog: Optional[list[Path]] = CATALOG_OPTION,
    calibration: Optional[Path] = CALIBRATION_OPTION,
) -> None:
    """Simulate a scenario event by event: latency percentiles and behaviour over time."""
    from ..service.simulate import SimulateOptions, check_duration, simulate_file

    if ios is not None and duration is not None:
        raise SchemaError("give --ios or --duration, not both", field="--ios")
    if json_:
        refuse_alone("--all", all_, ALL_APPLIES)
    if plot is not None:
        check_plot_path(plot)
    dur, ivl = check_duration(duration, "--duration"), check_duration(interval, "--interval")
    rmp = check_duration(ramp, "--ramp", positive=False)
    if not json_ and plot is None:
        refuse_alone("--interval", ivl, "with --json or --plot (the IOPS series it sets the points of)")
    cancel = threading.Event()
    opts = SimulateOptions(catalog=tuple(catalog or ()), calibration=calibration, ios=ios, duration=dur, ramp=rmp,
                           seed=seed, replications=replications, interval=ivl, plot=plot, cancel=cancel)
    show = not json_ and sys.stderr.isatty()
    with interrupts_set(cancel):
        if show:
            with Progress(TextColumn("simulating"), BarColumn(), TaskProgressColumn(), TextColumn("{task.fields[ios]} IOs"),
                          TimeElapsedColumn(), console=err_console, transient=True) as bar:
                task = bar.add_task("sim", total=1.0, ios="0")
                result = simulate_file(scenario, replace(opts, progress=lambda f, n: bar.update(
                    task, completed=f, ios=f"{n:,}")))
        else:
            result = simulate_file(scenario, opts)
    warn(result.warnings)
    if plot is not None:
        _draw(plot, result)
    if json_:
        print_json(result.to_json())
    elif result.phased:
        _print_phases(result, scenario, all_)
    else:
        _print(result.phases[0], scenario, all_)
        if plot is not None:
            console.print(f"plot written to {plot}")
    if cancel.is_set():
        sim_ios = sum(p.sim.ios for p in result.phases)
        raise Interrupted(f"the simulation stopped early; the figures above cover only the {sim_ios:,} IOs "
                          "measured so far")


def _draw(plot: Path, result: SimulateResult) -> None:
    sim = result.phases[0].sim
    lat = sim.total.latency.to_json()
    simulation_charts(plot, title=f"{result.source.display}: simulated latency",
                      percentiles=[(k, lat[k]) for k in PERCENTILES if lat.get(k) is not None
                                   and math.isfinite(lat[k])],
                      series=[(p.t, p.iops) for p in sim.series],
                      credits=[(c.resource, [(p.t, p.ops if p.ops is not None else (p.bytes or 0.0))
                                             for p in c.series]) for c in sim.credits])


def _print_phases(result: SimulateResult, path: Path, show_all: bool = False) -> None:
    """A file whose jobs run in phases: each phase, then the file's total weighed by how long
    each phase runs."""
    total = result.to_json()
    for phase in result.phases:
        lasts = f", {format_duration(phase.duration)}" if phase.duration is not None else ""
        console.print(f"[bold]Phase {phase.number}[/] ({', '.join(j.name for j in phase.scenario.jobs)}{lasts})")
        _print(phase, path, show_all)
    console.print(f"[bold]File total[/] ({len(result.phases)} phases one after another): {format_ops(total['iops'])}, "
                  f"{format_rate(total['bandwidth'])}, {format_duration(total['latency']['mean'])} mean latency.")
