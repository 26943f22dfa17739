"""The model's figures before and after a client setting changes, for the user's scenario
(``--scenario``) or a default workload.

Default workloads (one Standard_D16s_v5 client, a 16 TiB volume of the mount's service at
its top level — ANF Ultra, NetApp Volumes Extreme, Azure Files premium):

* connections and SMB channels: 64 KiB random reads, 8 jobs × iodepth 16;
* NFSv4.1 session slots: 8 KiB random reads, 8 jobs × iodepth 32.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_LEVELS", "default_scenario", "before_after"]

DEFAULT_LEVELS = {"anf": "ultra", "gcnv": "extreme", "azure-files": "premium"}
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
    return {"version": 1, "clients": {"vm": "Standard_D16s_v5"}, "volumes": {"share": share},
            "jobs": [dict(DEFAULT_JOBS[workload])]}


def _figures(doc: dict) -> dict:
    return {k: doc[k] for k in ("iops", "bandwidth", "latency", "bottleneck") if k in doc}


def before_after(scenario: dict, file: str, base: Path, field: str, before: Any, after: Any, *,
                 smb: bool = False) -> dict | None:
    """Predict ``scenario`` with its share volumes' ``field`` at ``before`` and at ``after``
    (SMB volumes for an SMB mount, NFS volumes for an NFS one). None when the scenario has
    no such volume."""
    from ..prediction import predict_json
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
        out[key] = _figures(predict_json(parse_scenario(data, file=file, base=base)))
    return out
