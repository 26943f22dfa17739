"""`iolab plan`: the cheapest configuration that meets a requirements file, and why the others lost."""

from __future__ import annotations

import math
import sys
from dataclasses import replace
from pathlib import Path
from typing import Optional

import typer
from rich import box
from rich.table import Table

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..plan import Plan, PoolResult

from ..units import format_duration, format_ops, format_rate, format_size
from ..filekind import expect
from ..traps import traps_of
from .pairing import refuse_given
from .common import CALIBRATION_OPTION, CATALOG_OPTION, JSON_OPTION, console, err_console, print_json, warn

#: the options that set how latency percentiles are checked by simulation.
TAIL_OPTIONS = ("--check-top", "--sim-ios", "--replications", "--seed")


def plan(
    ctx: typer.Context,
    file: Path = typer.Argument(..., help="The requirements file (YAML)."),
    json_: bool = JSON_OPTION,
    top: int = typer.Option(5, "--top", min=1, max=100, help="How many configurations to rank."),
    catalog: Optional[list[Path]] = CATALOG_OPTION,
    region: Optional[str] = typer.Option(None, "--region", help="The region whose prices to use: an Azure region "
                                         "(eastus), a Google Cloud one (us-central1) or an AWS one (us-east-1); its cloud's parts alone are "
                                         "searched. Default: eastus, or the default region of the cloud the "
                                         "requirements' parts name.", metavar="REGION"),
    check_top: int = typer.Option(10, "--check-top", min=1, max=1000,
                                  help="With latency percentiles required: how many of the cheapest candidates "
                                       "that pass on means to simulate."),
    sim_ios: Optional[int] = typer.Option(None, "--sim-ios", min=100, max=10**12,
                                          help="Measured IOs per replication of each simulation (default: about "
                                               "100 beyond the highest percentile bounded, at least 10,000)."),
    replications: int = typer.Option(5, "--replications", min=2, max=100,
                                     help="Replications per simulated candidate (for the 95% interval)."),
    seed: int = typer.Option(1, "--seed", min=0, max=2**64 - 1, help="Seed of the simulations (the same seed, the same plan)."),
    calibration: Optional[Path] = CALIBRATION_OPTION,
) -> None:
    """Find the cheapest configuration that meets a requirements file, and say why the others lost."""
    import tempfile

    from ..plan import PoolResult, load_requirements, plan as run_plan
    from ..plan.tail import TailOptions

    expect(file, "requirements")
    with tempfile.TemporaryDirectory(prefix="iolab-") as tmp:
        if calibration is not None:
            from ..calibrate.calibration import calibration_catalog

            catalog = [*(catalog or []), calibration_catalog(calibration, tmp)]
        req = load_requirements(file, catalog or ()).in_region(region)
    bounded = any(r.require is not None and bool(r.require.percentiles) for r in (req, *req.workloads))
    if req.pool is not None:
        refuse_given(ctx, "to disk and share plans (a pool plan lists every level searched)", "--top")
    if not bounded:
        refuse_given(ctx, "when the requirements bound a latency percentile (latency: {p99: 10ms}), "
                     "which plan checks by simulating candidates", *TAIL_OPTIONS)
    warnings = warn(traps_of(req))
    options = TailOptions(check_top, sim_ios, replications, seed)
    if bounded and not json_ and sys.stderr.isatty():
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(TextColumn("simulating candidate {task.fields[which]}"), BarColumn(), TimeElapsedColumn(),
                      console=err_console, transient=True) as bar:
            task = bar.add_task("sim", total=float(check_top), which="1")

            def progress(done: int, total: int, fraction: float) -> None:
                bar.update(task, completed=done + fraction, which=f"{done + 1} of at most {total}")

            result = run_plan(req, top=top, tail=replace(options, progress=progress))
    else:
        result = run_plan(req, top=top, tail=options)
    if json_:
        print_json({**result.to_json(), "warnings": warnings})
    elif isinstance(result, PoolResult):
        _print_pool(result, file)
    elif req.workloads:
        _print_machine(result, file)
    else:
        _print(result, file)


def _money(x: float | None) -> str:
    return "unpriced" if x is None else f"${x:,.2f}"


def _print(p: Plan, file: Path) -> None:
    from ..plan.table import WORDS

    req, wl = p.requirements, p.workload
    need = req.require
    assert need is not None
    parts = [f"{format_ops(wl.rate)} ({format_rate(wl.bandwidth)})"]
    if need.latency is not None:
        parts.append(f"mean latency ≤ {format_duration(need.latency)}")
    for key, bound in need.percentiles.items():
        parts.append(f"{key} ≤ {format_duration(bound)} (simulated)")
    if need.capacity is not None:
        parts.append(f"{format_size(need.capacity)} usable")
    parts.append(f"no resource over {need.max_utilization:.0%} busy")
    clients = f" across {req.clients} clients" if req.clients > 1 else ""
    console.print(f"[bold]Plan[/] for {file}: {wl.describe()} — {', '.join(parts)}{clients}")
    kinds = " and ".join(req.search.kinds)
    console.print(f"searched {p.evaluated:,} configurations ({kinds}; prices of {req.region}): "
                  f"{p.feasible:,} feasible" + (f" on means; the cheapest {p.checked} simulated" if p.checked else ""))
    if not p.candidates:
        if p.evaluated:
            console.print("[bold red]No configuration meets the requirements.[/] The nearest misses:")
            for m in p.nearest:
                console.print(f"  - {m.describe()}")
        else:
            console.print("[bold red]No configuration can be built from the search space.[/]")
        _excluded(p)
        return
    # Every candidate carries the same (required) IOPS and bandwidth: narrow terminals skip them.
    wide = console.width >= 110
    t = Table(header_style="bold", box=box.SIMPLE_HEAD, pad_edge=False)
    keys = list(need.percentiles)
    cols = ("#", "$/month", "configuration") + (("IOPS", "bandwidth") if wide else ()) + \
        ("latency",) + tuple(f"{k} (95% interval)" for k in keys) + ("headroom", "binding")
    for col in cols:
        t.add_column(col, justify="left" if col in ("configuration", "binding") else "right",
                     overflow="fold", no_wrap=col != "configuration")
    for c in p.candidates:
        b = c.prediction.bottleneck
        load = (f"{c.prediction.rate:,.0f}", format_rate(c.prediction.bandwidth)) if wide else ()
        tails = [_tail(c.tail, k) for k in keys]
        t.add_row(str(c.rank), _money(c.monthly_cost).lstrip("$"), c.config.describe(), *load,
                  _latency(c.prediction.latency), *tails, f"{c.headroom:.0%}", f"{_kind(b.kind)} {b.utilization:.0%}")
    console.print(t)
    first = p.candidates[0]
    b = first.prediction.bottleneck
    inflight = first.prediction.solution.concurrency
    keep = (f"The workload must keep about {inflight:.0f} IOs in flight." if math.isfinite(inflight) else
            "At exactly its limit the queue has no bound: require a latency to keep a margin.")
    console.print(f"[bold]#1[/] {first.config.describe()} carries the load with {first.headroom:.0%} headroom; "
                  f"the first limit it meets is {WORDS.get(b.kind, b.kind)} ({b.label}, {b.utilization:.0%} "
                  f"busy). {keep}")
    if first.bill is not None:
        console.print(f"Monthly bill of #1: {_bill(first.bill)}")
    _performance_plus(first.config)
    for note in first.notes:
        console.print(f"[dim]note: {note}[/]")
    if len(p.candidates) > 1 or p.rejected or p.others or p.excluded:
        console.print("[bold]Why not the others[/]")
    for c in p.candidates[1:]:
        console.print(f"  #{c.rank} {c.config.describe()}: {c.why}")
    # Feasible groups that only lack a price read best as one line.
    unpriced = [m for m in p.others if m.feasible and m.monthly_cost is None]
    others = [m for m in p.others if m not in unpriced]
    for title, misses in (("cheaper, but failing:", p.rejected), ("other options:", others)):
        if misses:
            console.print(f"  {title}")
            for m in misses:
                console.print(f"  - {m.describe()}")
    if unpriced:
        console.print("  feasible, but without a price in the catalog: "
                      + "; ".join(m.config.describe() for m in unpriced))
    _excluded(p)


def _tail(check, key: str) -> str:
    """A simulated percentile and its interval: ``2.38 ms (2.35–2.42)``."""
    if check is None:
        return "—"
    low_high = check.interval.get(key)
    shown = format_duration(check.estimate[key])
    # a latency is never negative: an interval from few replications can reach below 0
    return shown if low_high is None else f"{shown} ({format_duration(max(0.0, low_high[0]))}–{format_duration(low_high[1])})"


def _performance_plus(config) -> None:
    """How to get #1's disks when they use performance plus."""
    if any(d.performance_plus for d in config.groups()):
        console.print("Create its disks with performance plus enabled: it costs nothing more, but can only be set "
                      "when a disk is created (search.performance_plus: false plans without it).")


def _bill(b) -> str:
    """``VM $560.64 + disks $540.68 = $1,101.32`` (parts that cost nothing left out)."""
    parts = [(name, x) for name, x in (("VM", b.vm), ("disks", b.disks), ("shares and pools", b.shares),
                                       ("provisioned IOPS and throughput", b.provisioned)) if x > 0.005]
    return " + ".join(f"{name} ${x:,.2f}" for name, x in parts) + f" = ${b.total:,.2f}"


def _latency(seconds: float) -> str:
    """A mean latency; a saturated resource (allowed when no latency is required) makes it unbounded."""
    return format_duration(seconds) if math.isfinite(seconds) else "unbounded"


def _kind(kind: str) -> str:
    return {"connection-slots": "slots", "vm-cache": "vm cache"}.get(kind, kind)


def _excluded(p: Plan) -> None:
    if p.excluded:
        console.print("  not searched:")
        for text in p.excluded:
            console.print(f"  - {text}")


def _print_machine(p, file: Path) -> None:
    """Several workloads on one machine: the VM and a volume for each."""
    from ..plan.machine import describe_need

    req = p.requirements
    console.print(f"[bold]Plan[/] for {file}: {len(req.workloads)} workloads on one machine, "
                  f"no resource over its workload's max_utilization "
                  f"({', '.join(f'{w.name} {w.require.max_utilization:.0%}' for w in req.workloads)})")
    for part, wl in zip(req.workloads, p.parts):
        console.print(f"  {describe_need(part, wl)}")
    checked = f"; the cheapest {p.checked} simulated" if p.checked else ""
    console.print(f"searched {p.evaluated:,} layouts (prices of {req.region}): {p.feasible:,} feasible{checked}")
    if not p.candidates:
        console.print("[bold red]No configuration meets the requirements.[/] The nearest misses:")
        for m in p.nearest:
            console.print(f"  - {m.describe()}")
        return
    names = [w.name for w in req.workloads]
    t = Table(header_style="bold", box=box.SIMPLE_HEAD, pad_edge=False)
    for col in ("#", "$/month", "configuration", *(f"{n} latency" for n in names), "headroom", "binding"):
        t.add_column(col, justify="left" if col in ("configuration", "binding") else "right", overflow="fold",
                     no_wrap=col != "configuration")
    for c in p.candidates:
        b = c.prediction.bottleneck
        lat = []
        for f in c.workloads:
            text = _latency(f.latency)
            if f.tail is not None:
                text += "; " + ", ".join(f"{k} {format_duration(f.tail.estimate[k])}" for k in f.tail.bounds)
            lat.append(text)
        t.add_row(str(c.rank), _money(c.monthly_cost).lstrip("$"), c.config.describe(), *lat,
                  f"{c.headroom:.0%}", f"{_kind(b.kind)} {b.utilization:.0%}")
    console.print(t)
    first = p.candidates[0]
    b = first.prediction.bottleneck
    console.print(f"[bold]#1[/] {first.config.describe()} carries every workload with {first.headroom:.0%} headroom; "
                  f"the busiest resource is {b.label} ({b.utilization:.0%} busy).")
    if first.bill is not None:
        console.print(f"Monthly bill of #1: {_bill(first.bill)}")
    _performance_plus(first.config)
    if len(p.candidates) > 1 or p.rejected:
        console.print("[bold]Why not the others[/]")
    for c in p.candidates[1:]:
        console.print(f"  #{c.rank} {c.config.describe()}: {c.why or 'unpriced'}")
    if p.rejected:
        console.print("  cheaper, but failing:")
        for m in p.rejected:
            console.print(f"  - {m.describe()}")


def _print_pool(r: PoolResult, file: Path) -> None:
    pool = r.requirements.pool
    assert pool is not None
    total = sum(v.capacity for v in pool.volumes)
    tp = sum(v.bandwidth for v in pool.volumes)
    count = f"{len(pool.volumes)} volume{'s' if len(pool.volumes) > 1 else ''}"
    console.print(f"[bold]Pool plan[/] for {file}: {count} of {pool.service}, "
                  f"{format_size(total)} and {format_rate(tp, binary=True)} in all")
    if r.candidates:
        t = Table(header_style="bold", box=box.SIMPLE_HEAD, pad_edge=False)
        for col in ("#", "$/month", "level", "pool", "budget", "assigned", "spare", "sized by"):
            t.add_column(col, justify="left" if col in ("level", "sized by") else "right")
        for i, c in enumerate(r.candidates, 1):
            t.add_row(str(i), _money(c.monthly_cost).lstrip("$"), c.level.id, format_size(c.pool),
                      format_rate(c.budget, binary=True), format_rate(c.assigned, binary=True),
                      format_rate(c.budget - c.assigned, binary=True), c.sized_by)
        console.print(t)
        best = r.candidates[0]
        console.print(f"[bold]#1[/]: the volumes in the {format_size(best.pool)} {best.level.id} pool")
        v = Table(header_style="bold", box=box.SIMPLE_HEAD, pad_edge=False)
        for col in ("volume", "size", "throughput"):
            v.add_column(col, justify="left" if col == "volume" else "right")
        for vol in best.volumes:
            v.add_row(vol.name + (" (large)" if vol.large else ""), format_size(vol.size),
                      format_rate(vol.throughput, binary=True))
        console.print(v)
        spare = best.budget - best.assigned
        if spare > 0:
            console.print(f"{format_rate(spare, binary=True)} of the budget is unassigned: give it to any volume.")
    else:
        console.print("[bold red]The volumes cannot share a pool at any level searched.[/]")
    for m in r.misses:
        console.print(f"  - {m.level.id}: {m.reason}")
