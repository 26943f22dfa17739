"""`iolab plan`: the cheapest configuration that meets a requirements file, and why the others lost."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Optional

import typer
from rich import box
from rich.table import Table

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..plan import Plan, PoolResult

from ..units import format_duration, format_ops, format_rate, format_size
from .common import CALIBRATION_OPTION, CATALOG_OPTION, JSON_OPTION, console, print_json


def plan(
    file: Path = typer.Argument(..., help="The requirements file (YAML)."),
    json_: bool = JSON_OPTION,
    top: int = typer.Option(5, "--top", min=1, max=100, help="How many configurations to rank."),
    catalog: Optional[list[Path]] = CATALOG_OPTION,
    calibration: Optional[Path] = CALIBRATION_OPTION,
) -> None:
    """Find the cheapest configuration that meets a requirements file, and say why the others lost."""
    import tempfile

    from ..plan import PoolResult, load_requirements, plan as run_plan

    with tempfile.TemporaryDirectory(prefix="iolab-") as tmp:
        if calibration is not None:
            from ..calibrate.calibration import calibration_catalog

            catalog = [*(catalog or []), calibration_catalog(calibration, tmp)]
        req = load_requirements(file, catalog or ())
    result = run_plan(req, top=top)
    if json_:
        print_json(result.to_json())
    elif isinstance(result, PoolResult):
        _print_pool(result, file)
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
    if need.capacity is not None:
        parts.append(f"{format_size(need.capacity)} usable")
    clients = f" across {req.clients} clients" if req.clients > 1 else ""
    console.print(f"[bold]Plan[/] for {file}: {wl.describe()} — {', '.join(parts)}{clients}")
    console.print(f"searched {p.evaluated:,} configurations ({req.search.kind}): {p.feasible:,} feasible")
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
    cols = ("#", "$/month", "configuration") + (("IOPS", "bandwidth") if wide else ()) + \
        ("latency", "headroom", "binding")
    for col in cols:
        t.add_column(col, justify="left" if col in ("configuration", "binding") else "right",
                     overflow="fold", no_wrap=col != "configuration")
    for c in p.candidates:
        b = c.prediction.bottleneck
        load = (f"{c.prediction.rate:,.0f}", format_rate(c.prediction.bandwidth)) if wide else ()
        t.add_row(str(c.rank), _money(c.monthly_cost).lstrip("$"), c.config.describe(), *load,
                  _latency(c.prediction.latency), f"{c.headroom:.0%}", f"{_kind(b.kind)} {b.utilization:.0%}")
    console.print(t)
    first = p.candidates[0]
    b = first.prediction.bottleneck
    inflight = first.prediction.solution.concurrency
    keep = (f"The workload must keep about {inflight:.0f} IOs in flight." if math.isfinite(inflight) else
            "At exactly its limit the queue has no bound: require a latency to keep a margin.")
    console.print(f"[bold]#1[/] {first.config.describe()} carries the load with {first.headroom:.0%} headroom; "
                  f"the first limit it meets is {WORDS.get(b.kind, b.kind)} ({b.label}, {b.utilization:.0%} "
                  f"busy). {keep}")
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
