"""The model's figures before and after a client setting changes, for the user's scenario
(``--scenario``) or a default workload.

Default workloads (one client of the service's cloud, :data:`DEFAULT_CLIENTS`: a
Standard_D16s_v5, a 16-vCPU Compute Engine client for NetApp Volumes; a 16 TiB volume of the
mount's service at its top level — ANF Ultra, NetApp Volumes Extreme, Azure Files premium):

* connections and SMB channels: 64 KiB random reads, 8 jobs × iodepth 16;
* NFSv4.1 session slots: 8 KiB random reads, 8 jobs × iodepth 32.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_LEVELS", "default_scenario", "before_after"]

DEFAULT_LEVELS = {"anf": "ultra", "gcnv": "extreme", "azure-files": "premium"}
#: The default workload's client, of the service's own cloud: an Azure Standard_D16s_v5, and
#: for NetApp Volumes a client of 16 vCPUs with 32 Gbit/s of egress (a Compute Engine
#: n2-standard-16's default egress).
DEFAULT_CLIENTS: dict[str, dict] = {"anf": {"vm": "Standard_D16s_v5"},
                                    "gcnv": {"cpus": 16, "limits": {"network_bandwidth": "32Gbit/s"}}}
DEFAULT_JOBS = {
    "throughput": {"name": "reads-64k", "rw": "randread", "bs": "64k", "iodepth": 16, "numjobs": 8,
                   "ioengine": "libaio", "direct": 1},
    "concurrency": {"name": "reads-8k", "rw": "randread", "bs": "8k", "iodepth": 32, "numjobs": 8,
                    "ioengine": "libaio", "direct": 1},
}


def default_scenario(service: str, protocol: str, workload: str, *, nconnect: int = 1,
                     session_slots: int | None = None) -> dict:
    """The default workload on the mount's service, with the mount's current connections
    (and NFSv4.1 session slots), so that one finding changes one thing."""
    svc = service if service in DEFAULT_LEVELS else "anf"
    share: dict = {"service": svc, "level": DEFAULT_LEVELS[svc], "size": "16TiB", "protocol": protocol,
                   "nconnect": max(1, min(16, nconnect))}
    if protocol == "nfs4.1" and session_slots:
        share["session_slots"] = session_slots
    return {"version": 1, "clients": dict(DEFAULT_CLIENTS.get(svc, DEFAULT_CLIENTS["anf"])), "volumes": {"share": share},
            "jobs": [dict(DEFAULT_JOBS[workload])]}


def _figures(p: Any) -> dict:
    doc = p.to_json()
    return {k: doc[k] for k in ("iops", "bandwidth", "latency", "bottleneck") if k in doc}


def before_after(scenario: dict, file: str, base: Path, field: str, before: Any, after: Any, *,
                 smb: bool = False) -> dict | None:
    """Predict ``scenario`` with its share volumes' ``field`` at ``before`` and at ``after``
    (SMB volumes for an SMB mount, NFS volumes for an NFS one). None when the scenario has
    no such volume."""
    from ..prediction import predict
    from ..scenario import parse_scenario

    out = {}
    for key, value in (("before", before), ("after", after)):
        data = copy.deepcopy(scenario)
        vols = [v for v in (data.get("volumes") or {}).values() if isinstance(v, dict) and "service" in v
                and (v.get("protocol", "nfs3") == "smb3") == smb
                and (field != "session_slots" or v.get("protocol") == "nfs4.1")]
        if not vols:
            return None
        for v in vols:
            v[field] = value
        out[key] = _figures(predict(parse_scenario(data, file=file, base=base)))
    return out
