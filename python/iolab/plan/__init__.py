"""``iolab plan``: the cheapest configuration that meets a workload's requirements, and why.

A requirements file (:func:`load_requirements`) states a workload's shape in fio's terms,
what it needs (IOPS, bandwidth, latency, capacity, across ``clients``) and the space to
search (VM sizes × disk SKUs × counts × host caching, or file-share services × levels ×
protocols × nconnect). :func:`plan` evaluates every configuration with the open model of
the analytic engine at the required load, keeps those whose every resource stays within
the margin (``require.max_utilization``), ranks them by monthly cost (with the bill by
part), checks the top ones again on their real compiled scenario — and, with latency
percentiles required, by simulating them (:mod:`iolab.plan.tail`) — and says why the
cheaper ones fail. ``kind: any`` ranks disks and shares together; a ``workloads:`` file
plans one machine for several workloads (:mod:`iolab.plan.machine`); a ``pool:`` file
sizes one NetApp capacity pool for several volumes.

    >>> from iolab.plan import load_requirements, plan
    >>> result = plan(load_requirements("examples/oltp-requirements.yaml"), top=3)
    >>> result.candidates[0].config.describe()          # doctest: +SKIP
    'Standard_D16s_v5 + 4 × P30'
"""

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .config import Config, DiskChoice, ShareChoice
    from .cost import Bill
    from .machine import MachineCandidate, MachinePlan
    from .pool import PoolMiss, PoolPlan, PoolVolumePlan
    from .prediction import LoadPrediction, predict_at_load
    from .rank import Candidate, Miss, Plan
    from .requirements import (PoolRequest, PoolVolume, Require, Requirements, Search, load_requirements,
                               parse_requirements)
    from .search import PoolResult, plan
    from .table import Batch, Limits
    from .tail import TailCheck, TailOptions
    from .workload import Workload

__all__ = [
    "load_requirements",
    "parse_requirements",
    "plan",
    "predict_at_load",
    "Requirements",
    "Require",
    "Search",
    "PoolRequest",
    "PoolVolume",
    "Workload",
    "Config",
    "DiskChoice",
    "ShareChoice",
    "Batch",
    "Plan",
    "Candidate",
    "Miss",
    "LoadPrediction",
    "PoolResult",
    "PoolPlan",
    "PoolVolumePlan",
    "PoolMiss",
    "Bill",
    "Limits",
    "MachinePlan",
    "MachineCandidate",
    "TailCheck",
    "TailOptions",
]


_HOME = {
    "Config": "config", "DiskChoice": "config", "ShareChoice": "config", "Bill": "cost",
    "LoadPrediction": "prediction", "predict_at_load": "prediction", "Candidate": "rank", "Miss": "rank",
    "Plan": "rank", "PoolRequest": "requirements", "PoolVolume": "requirements", "Require": "requirements",
    "Requirements": "requirements", "Search": "requirements", "load_requirements": "requirements",
    "parse_requirements": "requirements", "PoolResult": "search", "plan": "search", "Batch": "table",
    "Limits": "table", "TailCheck": "tail", "TailOptions": "tail", "Workload": "workload",
    "MachinePlan": "machine", "MachineCandidate": "machine", "PoolPlan": "pool", "PoolVolumePlan": "pool",
    "PoolMiss": "pool",
}
"""The module of each name the package exports."""


def __getattr__(name: str):
    """Each exported name loads with its module, on first use: a pool plan never loads the
    queueing model, and a requirements file is read without the search."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
