"""`iolab check`: validate a scenario or requirements file and summarise it."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer
from rich.table import Table

from ..filekind import expect
from ..units import format_block, format_capacity, format_ops, format_rate, format_size
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..scenario import Scenario

from ..input_warnings import jobfile_traps as traps_of_jobfile
from ..input_warnings import traps_of
from .common import CATALOG_OPTION, JSON_OPTION, console, print_json, warn


def _volume_summary(vol) -> str:
    from ..scenario import DeviceVolume, DiskVolume, ShareVolume

    if isinstance(vol, DiskVolume):
        disks = ", ".join(f"{g.count}× {g.sku} ({'performance plus, ' if g.performance_plus else ''}caching "
                          f"{g.caching})" for g in vol.disks)
        n = sum(g.count for g in vol.disks)
        return disks + (f", striped at {format_size(vol.stripe_size)}" if n > 1 else "")
    if isinstance(vol, ShareVolume):
        extra = f", manual QoS {format_rate(vol.throughput, binary=True)}" if vol.throughput else ""
        conn = f", nconnect {vol.nconnect}" if vol.nconnect else ""
        return f"{vol.service} {vol.level} {format_capacity(vol.size)} over {vol.protocol}{conn}{extra}"
    if isinstance(vol, DeviceVolume):
        d = vol.device
        return (f"device: {format_ops(d.iops) if d.iops else 'uncapped IOPS'}, "
                f"{format_rate(d.bandwidth) if d.bandwidth else 'uncapped bandwidth'}")
    return str(vol)


def scenario_summary(s: Scenario) -> dict:
    from ..fio.summary import thinking

    return {
        "kind": "scenario",
        "file": s.file,
        "clients": {"count": s.clients.count, "vm": s.clients.vm},
        "volumes": {name: _volume_summary(v) for name, v in s.volumes.items()},
        "jobs": [{"name": j.name, "volume": j.volume, "rw": j.fio.rw, "bs": j.fio.bs, "iodepth": j.fio.iodepth,
                  "numjobs": j.fio.numjobs, "ioengine": j.fio.ioengine, "outstanding": j.fio.outstanding,
                  **thinking(j.fio)}
                 for j in s.jobs],
        "ignored": list(s.ignored),
    }


def check(
    file: Path = typer.Argument(..., help="A scenario or requirements file (YAML), or a fio job file."),
    json_: bool = JSON_OPTION,
    catalog: Optional[list[Path]] = CATALOG_OPTION,
) -> None:
    """Validate a scenario, requirements or fio job file and summarise it."""
    from ..fio.summary import is_jobfile, sizes_text, think_text
    from ..inputs import read_text
    from ..scenario import load_scenario
    from ..schema import load_yaml

    text = read_text(file)
    if is_jobfile(file, text):
        from ..fio import parse_jobfile
        from ..fio.summary import checked_sizes, summary

        parsed = parse_jobfile(text, source=str(file))
        checked_sizes(parsed, str(file))
        doc = summary(parsed, str(file))
        doc["warnings"] = warn(traps_of_jobfile(file, parsed))
        if json_:
            print_json(doc)
            return
        n = len(doc["jobs"])
        console.print(f"[green]ok[/] {file}: a valid {doc['kind']} with {n} job{'' if n == 1 else 's'}")
        for j, fj in zip(doc["jobs"], parsed):
            mix = f" {j['read_fraction']:.0%} reads" if 0 < j["read_fraction"] < 1 else ""
            rate = f", at most {format_ops(j['rate_iops'])} per job" if j["rate_iops"] else ""
            for d, other in (("reads", "writes"), ("writes", "reads")):
                if j[f"capped_{d}"]:
                    rate += f", {d} at most {format_ops(j[f'capped_{d}'])} per job ({other} flat out)"
            rate += f", {think_text(j)}" if j["thinktime"] else ""
            console.print(f"job {j['name']}: {j['rw']}{mix}, {sizes_text(fj)}, {j['ioengine']}, "
                          f"{j['outstanding']} in flight{rate}" + ("" if j["storage_io"] else " (no storage IO)"),
                          highlight=False, markup=False)
        if doc["ignored"]:
            console.print(f"fio options accepted but not modelled: {', '.join(doc['ignored'])}",
                          highlight=False, markup=False)
        return
    expect(file, ("scenario", "requirements"))
    data = load_yaml(file)
    if isinstance(data, dict) and ("require" in data or "pool" in data or "workloads" in data):
        from ..plan import load_requirements

        loaded: Any = load_requirements(file, catalog or ())
        doc = {"kind": "requirements", "file": str(file), **loaded.summary()}
    else:
        loaded = load_scenario(file, catalog or ())
        doc = scenario_summary(loaded)
    doc["warnings"] = warn(traps_of(loaded))
    if json_:
        print_json(doc)
        return
    console.print(f"[green]ok[/] {file}: a valid {doc['kind']} file")
    if doc["kind"] == "scenario":
        c = doc["clients"]
        console.print(f"clients: {c['count']} × {c['vm'] or 'generic client'}")
        for name, text in doc["volumes"].items():
            console.print(f"volume {name}: {text}")
        t = Table(header_style="bold")
        thinks = any(j["thinktime"] for j in doc["jobs"])
        for col in ("job", "volume", "rw", "bs", "iodepth", "numjobs", "ioengine", "in flight") + \
                (("thinktime",) if thinks else ()):
            t.add_column(col)
        for j, sj in zip(doc["jobs"], loaded.jobs):
            t.add_row(j["name"], j["volume"], j["rw"], sizes_text(sj.fio), str(j["iodepth"]), str(j["numjobs"]),
                      j["ioengine"], str(j["outstanding"]), *((think_text(j) or "-",) if thinks else ()))
        console.print(t)
        if doc["ignored"]:
            console.print(f"[dim]fio options accepted but not modelled: {', '.join(doc['ignored'])}[/]")
    else:
        for line in requirements_lines(doc):
            console.print(line, highlight=False)


def _need(key: str, value) -> str:
    from ..units import format_duration

    return {"iops": lambda v: format_ops(v), "bandwidth": lambda v: format_rate(v),
            "latency": lambda v: f"mean latency ≤ {format_duration(v)}",
            "capacity": lambda v: f"{format_capacity(v)} usable",
            "max_utilization": lambda v: f"no resource over {v:.0%} busy",
            "durable": lambda v: "writes durable" if v else "writes need not be durable",
            "percentiles": lambda v: "; ".join(f"{k} latency ≤ {format_duration(x)}" for k, x in v.items()),
            }.get(key, lambda v: f"{key} {v}")(value)


def requirements_lines(doc: dict) -> list[str]:
    """A requirements summary as a person reads it (units, not base numbers)."""
    lines = []
    for name, sub in doc.get("workloads", {}).items():
        lines += [f"workload {name}: {line}" for line in requirements_lines(sub) if not line.startswith("clients")]
    for j in doc.get("jobs", []):
        mix = f" {j['rwmixread']}% reads" if j.get("rwmixread") is not None and "rw" in j["rw"][-2:] else ""
        lines.append(f"job {j['name']}: {j['rw']}{mix}, {j.get('sizes') or format_block(j['bs'])}, "
                     f"{j['outstanding']} in flight")
    if doc.get("require"):
        lines.append("require: " + "; ".join(_need(k, v) for k, v in doc["require"].items() if v is not None))
    if "clients" in doc:
        lines.append(f"clients: {doc['clients']}")
    if doc.get("search"):
        parts = [f"{k} {', '.join(map(str, v))}" if isinstance(v, list) else
                 (f"{k} {format_size(v)}" if k == "stripe_size" else f"{k} {v}")
                 for k, v in doc["search"].items() if v not in (None, [])]
        lines.append("search: " + "; ".join(parts))
    pool = doc.get("pool")
    if pool:
        lines.append(f"pool: {pool.get('service')}" + (f" {pool['level']}" if pool.get("level") else ""))
        for v in pool.get("volumes", []):
            lines.append(f"  volume {v['name']}: {format_capacity(v['capacity'])}, "
                         f"{format_rate(v['bandwidth'], binary=True) if v.get('bandwidth') else 'no throughput need'}")
    return lines
