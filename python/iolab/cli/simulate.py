"""`iolab simulate`: a scenario event by event — latency percentiles and behaviour over time."""

from __future__ import annotations

import math
import sys
import threading
from pathlib import Path
from typing import Any, Optional

import typer
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..errors import SchemaError
from ..filekind import expect
from ..plot import check_plot_path, simulation_charts
from ..units import format_duration, format_ops, format_rate, parse_duration
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..network import Network
    from ..sim import Simulation

DEFAULT_IOS = 1_000_000  # as iolab.sim.DEFAULT_IOS (a test checks they agree)

from ..traps import traps_of
from .common import ALL_APPLIES, ALL_OPTION, CALIBRATION_OPTION, CATALOG_OPTION, JSON_OPTION, console, err_console, fold, in_order, print_json, warn
from .interrupts import Interrupted, interrupts_set
from .pairing import refuse_alone

PERCENTILES = ("mean", "p50", "p90", "p99", "p99.9", "p99.99")


MAX_IOS = 10**12  # about four days of simulation at 3 million IOs a second
MAX_REPLICATIONS = 1000
#: the longest simulated time the engine runs (seconds, about 116 days), warm-up and measured each
MAX_SIM_SECONDS = 1e7


def _duration(text: str | None, option: str, *, positive: bool = True) -> float | None:
    if text is None:
        return None
    try:
        value = parse_duration(text)
    except ValueError as e:
        raise SchemaError(getattr(e, "message", str(e)), field=option) from None
    if positive and value <= 0:
        raise SchemaError(f"must be longer than 0 s (got {text!r})", field=option)
    if value >= MAX_SIM_SECONDS:
        raise SchemaError(f"must be shorter than {MAX_SIM_SECONDS:,.0f} s (about 116 days of simulated time; "
                          f"got {text!r})", field=option)
    return value


def _from_jobs(s: Any, ios: int | None, duration: float | None, ramp: float | None
               ) -> tuple[float | None, float | None]:
    """(duration, ramp) of a simulation: the options given, else the jobs' own ``runtime`` (of
    ``time_based`` jobs, when --ios is not given) and ``ramp_time``; a job's value past what
    the engine runs is refused naming the file and the job, with the option that overrides it."""
    def longest(attr: str, option: str, when: Any) -> float | None:
        found = [(getattr(j.fio, attr), j) for j in s.jobs if getattr(j.fio, attr) and when(j)]
        if not found:
            return None
        value, job = max(found, key=lambda f: f[0])
        if value >= MAX_SIM_SECONDS:
            raise SchemaError(f"{format_duration(value)} is longer than the {MAX_SIM_SECONDS:,.0f} s (about 116 days) "
                              f"a simulation runs; give {option}", file=s.file, field=f"{job.field}.{attr}")
        return value

    if ramp is None:
        ramp = longest("ramp_time", "--ramp", lambda j: True) or 0.0
    if ios is None and duration is None:
        duration = longest("runtime", "--duration or --ios", lambda j: j.fio.time_based)
    return duration, ramp


def _count(value: int | None, option: str, lowest: int, highest: int, words: str) -> None:
    """A whole-number option within bounds, refused in a person's words (no 19-digit limits)."""
    if value is None:
        return
    if value < lowest:
        raise SchemaError(f"must be at least {lowest:,} (got {value:,})", field=option)
    if value > highest:
        got = f"{value:,}" if value < 10**15 else f"{value:.3g}"
        raise SchemaError(f"must be at most {highest:,}{' ' + words if words else ''} (got {got})", field=option)


def bottleneck(sim: Simulation, loads: dict[str, float] | None = None) -> dict:
    """As predict names it: the busiest cap when at least 90 % busy (at the rate it ran, burst
    or not); else a slot limit whose slots are nearly always all in use; else
    ``concurrency``. ``utilization`` is predict's (see :mod:`iolab.readout`) when `loads`
    are given."""
    from ..analytic import SATURATION

    loads = loads or {}
    caps = [r for r in sim.resources if r.slots is None]
    slots = [r for r in sim.resources if r.slots is not None]
    top = max(caps, key=lambda r: r.utilization, default=None)
    if top is not None and top.utilization >= SATURATION:
        return {"resource": top.resource, "kind": top.kind, "utilization": loads.get(top.id, top.utilization)}
    full = max(slots, key=lambda r: r.utilization, default=None)
    if full is not None and full.utilization >= 0.99:
        return {"resource": full.resource, "kind": full.kind, "utilization": full.utilization}
    busiest = max(caps, key=lambda r: loads.get(r.id, r.utilization), default=None)
    return {"resource": "concurrency", "kind": "concurrency",
            "utilization": loads.get(busiest.id, busiest.utilization) if busiest else 0.0,
            "busiest": busiest.resource if busiest else None}


def explain_bottleneck(b: dict, outstanding: int, bound: list[tuple[str, float]] = (),  # type: ignore[assignment]
                       thinking: str | None = None) -> str:
    """The bottleneck line in words, as predict writes it (`bound`: jobs at fio's rate limit;
    `thinking`: the words for jobs with a thinktime)."""
    from ..readout import rate_words

    if b["kind"] == "concurrency" and bound:
        return f"{rate_words(list(bound))} (busiest resource {b['utilization']:.0%})"
    if b["kind"] == "concurrency" and thinking:
        return f"{thinking} (busiest resource {b['utilization']:.0%})"
    if b["kind"] == "concurrency":
        busiest = f"busiest: {b['busiest']}, {b['utilization']:.1%}" if b.get("busiest") else "no caps"
        return (f"nothing is saturated ({busiest}): the workload keeps too few IOs in flight ({outstanding:,}) "
                "to fill any limit")
    return f"{b['resource']} ({b['kind']}, {b['utilization']:.1%})"


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


def _merge(members: list[list]) -> list:
    """One row for alike resources: mean utilization, the range of busy, throttled added up."""
    n = len(members)
    busy = [m[3] for m in members]
    span = f"{min(busy):.1%}" if f"{min(busy):.1%}" == f"{max(busy):.1%}" else f"{min(busy):.1%}–{max(busy):.1%}"
    return [members[0][0], members[0][1], sum(m[2] for m in members) / n, span, sum(m[4] for m in members),
            members[0][5]]


def _print(sim: Simulation, path: Path, network: Network, outstanding: int, show_all: bool = False,
           order: tuple[str, ...] = ()) -> None:
    from ..readout import bursts, cap_loads, rate_bound, think_words, warm_ups

    console.print(_header(sim, path))
    t = Table(header_style="bold")
    for col in ("", "IOPS", "MB/s", *(f"{p} (ms)" for p in PERCENTILES)):
        t.add_column(col, justify="left" if not col else "right")
    rows = [("total", sim.total)] + [(d, s) for d, s in (("read", sim.read), ("write", sim.write)) if s]
    if len(sim.jobs) > 1:
        rows += [(f"job {j.name}", j) for j in in_order(list(sim.jobs), order, lambda j: j.name)]
    for name, s in rows:
        lat = s.latency.to_json()
        t.add_row(name, f"{s.iops:,.0f}", f"{s.bandwidth / 1e6:,.1f}",
                  *(f"{lat[k] * 1e3:.4g}" if lat.get(k) is not None and math.isfinite(lat[k]) else "-"
                    for k in PERCENTILES))
    console.print(t)
    loads = cap_loads(network, sim)
    used = bursts(network, sim, loads)
    r = Table(title="resources", header_style="bold", title_justify="left")
    for col in ("resource", "kind", "utilization", "busy", "throttled (IO-seconds)"):
        r.add_column(col, justify="left" if col in ("resource", "kind") else "right")
    lines = [[res.resource, res.kind, loads.get(res.id, res.utilization), res.utilization, res.throttled,
              res.slots] for res in sorted(sim.resources, key=lambda x: -loads.get(x.id, x.utilization))]
    if not show_all:  # alike resources within a percentage point fold into one row
        lines = fold(lines, key=lambda row: (row[1], round(row[2] * 100), row[5]), merge=_merge)
    for name, kind, load, busy, throttled, slots in lines:
        shown = f"{load * slots:.3g}/{slots} slots" if slots is not None else f"{load:.1%}"
        r.add_row(name, kind, shown, busy if isinstance(busy, str) else f"{busy:.1%}", f"{throttled:.3g}")
    console.print(r)
    console.print("[dim]utilization: of the sustained rate, as predict gives it (over 100 % only on burst "
                  "credits); busy: share of the time serving[/]")
    bound = rate_bound(network, {j.name: j.iops for j in sim.jobs} if sim.jobs else
                       {network.jobs[0].group: sim.total.iops})
    console.print(f"[bold]Bottleneck:[/] "
                  f"{explain_bottleneck(bottleneck(sim, loads), outstanding, bound, think_words(network))}")
    for u in used:
        left = "" if u.left is None else f"; {u.left:.1%} of its credits left at the end"
        empty = "" if u.empty_in is None else f", empty in about {format_duration(u.empty_in)} at this rate"
        console.print(f"[bold yellow]Bursting:[/] {u.resource} ran on burst credits at {u.load:.0%} of its "
                      f"sustained rate{left}{empty}. These figures are above what it sustains "
                      "(iolab predict gives both); simulate past the bucket (--duration) to see the sustained rate.")
    for w in warm_ups(network, sim):
        console.print(f"[bold yellow]Warming up:[/] {w.resource} started cold: {w.measured:.1%} of reads hit so far "
                      f"(warm: {w.warm:.0%}), so the disks serve reads a warm cache would; predict gives the warm "
                      "steady state. Simulate longer (--duration) or set the volume's cache: warm to compare.")
    for c in sim.cache:
        if c.hit_ratio is not None:
            console.print(f"host cache {c.resource}: {c.hit_ratio:.1%} of {c.lookups:,} reads hit")
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
    from ..compile import compile_scenario
    from ..phases import split
    from ..scenario import load_scenario
    from ..sim import simulate as run_simulation

    if ios is not None and duration is not None:
        raise SchemaError("give --ios or --duration, not both", field="--ios")
    if json_:
        refuse_alone("--all", all_, ALL_APPLIES)
    if plot is not None:
        check_plot_path(plot)
    expect(scenario, "scenario")
    s = load_scenario(scenario, catalog or ())
    if calibration is not None:
        from ..calibrate import apply_calibration

        s = apply_calibration(s, calibration)
    warnings = warn(traps_of(s))
    _count(ios, "--ios", 1, MAX_IOS, "(a trillion IOs: about four days of simulation)")
    _count(replications, "--replications", 1, MAX_REPLICATIONS, "")
    _count(seed, "--seed", 0, 2**64 - 1, "(a 64-bit number)")
    dur, ivl = _duration(duration, "--duration"), _duration(interval, "--interval")
    rmp = _duration(ramp, "--ramp", positive=False)
    if not json_ and plot is None:
        refuse_alone("--interval", ivl, "with --json or --plot (the IOPS series it sets the points of)")
    phases = split(s)
    if len(phases) > 1:
        if plot is not None:
            raise SchemaError(f"--plot takes jobs that run together; this file runs in {len(phases)} phases "
                              "(stonewall, wait_for)", field="--plot")
        _simulate_phases(phases, scenario, json_, ios=ios, duration=dur, ramp=rmp, seed=seed, interval=ivl,
                         replications=replications, warnings=warnings, show_all=all_)
        return
    from ..prediction import settle_mixes

    s = settle_mixes(s)
    network = compile_scenario(s)
    dur, rmp = _from_jobs(s, ios, dur, rmp)
    cancel = threading.Event()
    show = not json_ and sys.stderr.isatty()
    with interrupts_set(cancel):
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
    if sim.ios == 0:
        from ..traps import Trap

        warnings += warn([Trap("no IO completed in the measured time, so there is no latency to report "
                               "(null in JSON, - in tables): give a longer --duration, or --ios", str(scenario),
                               "--duration" if dur is not None else None)])
    if plot is not None:
        lat = sim.total.latency.to_json()
        simulation_charts(plot, title=f"{scenario.name}: simulated latency",
                          percentiles=[(k, lat[k]) for k in PERCENTILES if lat.get(k) is not None
                                       and math.isfinite(lat[k])],
                          series=[(p.t, p.iops) for p in sim.series],
                          credits=[(c.resource, [(p.t, p.ops if p.ops is not None else (p.bytes or 0.0))
                                                 for p in c.series]) for c in sim.credits])
    outstanding = sum(j.population for j in network.jobs)
    if json_:
        from ..readout import bursts, cap_loads, warm_ups

        doc = sim.to_json()
        doc["jobs"] = in_order(doc["jobs"], [j.name for j in s.jobs], lambda j: j["name"])
        loads = cap_loads(network, sim)
        for res, row in zip(sim.resources, doc["resources"]):
            if res.slots is None:  # predict's utilization; the engine's share of time busy beside it
                row["busy"] = row["utilization"]
                row["utilization"] = loads.get(res.id, res.utilization)
        doc["bottleneck"] = bottleneck(sim, loads)
        doc["bursting"] = [u.to_json() for u in bursts(network, sim, loads)]
        doc["warming"] = [{"resource": w.resource, "hit_ratio": w.measured, "warm_hit_ratio": w.warm}
                          for w in warm_ups(network, sim)]
        doc["outstanding"] = outstanding
        if plot is not None:
            doc["plot"] = str(plot)
        doc["warnings"] = warnings
        print_json(doc)
    else:
        _print(sim, scenario, network, outstanding, all_, tuple(j.name for j in s.jobs))
        if plot is not None:
            console.print(f"plot written to {plot}")
    if cancel.is_set():
        raise Interrupted(f"the simulation stopped early; the figures above cover only the {sim.ios:,} IOs "
                          "measured so far")


def _simulate_phases(phases: list, path: Path, json_: bool, *, ios: int | None, duration: float | None,
                     ramp: float | None, seed: int, interval: float | None, replications: int,
                     warnings: list | None = None, show_all: bool = False) -> None:
    """A file whose jobs run in phases: each phase simulated on its own (same options), then
    the file's total weighed by how long each phase runs."""
    from ..compile import compile_scenario
    from ..phases import combine_docs, duration as phase_duration
    from ..sim import simulate as run_simulation

    sims, docs, durations, networks = [], [], [], []
    from ..prediction import settle_mixes

    for phase in phases:
        s = settle_mixes(phase.scenario)
        network = compile_scenario(s)
        dur, rmp = _from_jobs(s, ios, duration, ramp)
        sim = run_simulation(network, ios=ios, duration=dur, ramp=rmp, seed=seed, interval=interval,
                             replications=replications)
        doc = sim.to_json()
        doc["bottleneck"] = bottleneck(sim)
        doc["outstanding"] = sum(j.population for j in network.jobs)
        sims.append(sim)
        networks.append(network)
        docs.append(doc)
        durations.append(phase_duration(phase, {j["name"]: j["bandwidth"] for j in doc.get("jobs", [])}))
    total = combine_docs(docs, durations)
    total["warnings"] = warnings or []
    if json_:
        print_json(total)
        return
    for phase, sim, d, net in zip(phases, sims, durations, networks):
        lasts = f", {format_duration(d)}" if d is not None else ""
        console.print(f"[bold]Phase {phase.number}[/] ({', '.join(phase.jobs)}{lasts})")
        _print(sim, path, net, sum(j.population for j in net.jobs), show_all,
               tuple(j.name for j in phase.scenario.jobs))
    console.print(f"[bold]File total[/] ({len(phases)} phases one after another): {format_ops(total['iops'])}, "
                  f"{format_rate(total['bandwidth'])}, {format_duration(total['latency']['mean'])} mean latency.")
