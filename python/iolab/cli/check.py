"""`iolab check`: validate a scenario or requirements file and summarise it."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from ..schema import load_yaml
from ..units import format_rate, format_size
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..scenario import Scenario

from .common import CATALOG_OPTION, JSON_OPTION, console, print_json


def _volume_summary(vol) -> str:
    from ..scenario import DeviceVolume, DiskVolume, ShareVolume

    if isinstance(vol, DiskVolume):
        disks = ", ".join(f"{g.count}× {g.sku} (caching {g.caching})" for g in vol.disks)
        n = sum(g.count for g in vol.disks)
        return disks + (f", striped at {format_size(vol.stripe_size)}" if n > 1 else "")
    if isinstance(vol, ShareVolume):
        extra = f", manual QoS {format_rate(vol.throughput, binary=True)}" if vol.throughput else ""
        conn = f", nconnect {vol.nconnect}" if vol.nconnect else ""
        return f"{vol.service} {vol.level} {format_size(vol.size)} over {vol.protocol}{conn}{extra}"
    if isinstance(vol, DeviceVolume):
        d = vol.device
        return f"device: {d.iops or 'uncapped'} IOPS, {format_rate(d.bandwidth) if d.bandwidth else 'uncapped'}"
    return str(vol)


def scenario_summary(s: Scenario) -> dict:
    return {
        "kind": "scenario",
        "file": s.file,
        "clients": {"count": s.clients.count, "vm": s.clients.vm},
        "volumes": {name: _volume_summary(v) for name, v in s.volumes.items()},
        "jobs": [{"name": j.name, "volume": j.volume, "rw": j.fio.rw, "bs": j.fio.bs, "iodepth": j.fio.iodepth,
                  "numjobs": j.fio.numjobs, "ioengine": j.fio.ioengine, "outstanding": j.fio.outstanding}
                 for j in s.jobs],
        "ignored": list(s.ignored),
    }


def check(
    file: Path = typer.Argument(..., help="A scenario or requirements file (YAML)."),
    json_: bool = JSON_OPTION,
    catalog: Optional[list[Path]] = CATALOG_OPTION,
) -> None:
    """Validate a scenario or requirements file and summarise it."""
    from ..scenario import load_scenario

    data = load_yaml(file)
    if isinstance(data, dict) and ("require" in data or "pool" in data):
        from ..plan import load_requirements

        req = load_requirements(file, catalog or ())
        doc = {"kind": "requirements", "file": str(file), **req.summary()}
    else:
        doc = scenario_summary(load_scenario(file, catalog or ()))
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
        for col in ("job", "volume", "rw", "bs", "iodepth", "numjobs", "ioengine", "in flight"):
            t.add_column(col)
        for j in doc["jobs"]:
            t.add_row(j["name"], j["volume"], j["rw"], format_size(j["bs"]), str(j["iodepth"]), str(j["numjobs"]),
                      j["ioengine"], str(j["outstanding"]))
        console.print(t)
        if doc["ignored"]:
            console.print(f"[dim]fio options accepted but not modelled: {', '.join(doc['ignored'])}[/]")
    else:
        for key, value in doc.items():
            if key not in ("kind", "file"):
                console.print(f"{key}: {value}")
