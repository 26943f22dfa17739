"""``iolab plan``: the cheapest configuration that meets a workload's requirements, and why.

A requirements file (:func:`load_requirements`) states a workload's shape in fio's terms,
what it needs (IOPS, bandwidth, latency, capacity, across ``clients``) and the space to
search (VM sizes × disk SKUs × counts × host caching, or file-share services × levels ×
protocols × nconnect). :func:`plan` evaluates every configuration with the open model of
the analytic engine at the required load, ranks the feasible ones by monthly cost, checks
the top ones again on their real compiled scenario, and says why the cheaper ones fail.
A ``pool:`` file sizes one NetApp capacity pool for several volumes instead.

    >>> from iolab.plan import load_requirements, plan
    >>> result = plan(load_requirements("examples/oltp-requirements.yaml"), top=3)
    >>> result.candidates[0].config.describe()          # doctest: +SKIP
    'Standard_D16s_v5 + 4 × P30'
"""

from .config import Config, DiskChoice, ShareChoice
from .pool import PoolMiss, PoolPlan, PoolVolumePlan
from .prediction import LoadPrediction, predict_at_load
from .rank import Candidate, Miss, Plan
from .requirements import PoolRequest, PoolVolume, Require, Requirements, Search, load_requirements, parse_requirements
from .search import PoolResult, plan
from .table import Batch
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
]
