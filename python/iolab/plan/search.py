"""``plan``: search the requirements' space, rank what is feasible, explain the rest (pure)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..catalog import DiskSku, ProvisionedDisk
from . import space
from .disks import PREMIUM_TIERS, Clients, Streams, search_fixed
from .provisioned import search_provisioned
from .rank import Plan, rank
from .requirements import Requirements
from .table import Batch
from .tail import TailOptions

if TYPE_CHECKING:
    from .machine import MachinePlan
    from .pool import PoolMiss, PoolPlan
from .workload import Workload

__all__ = ["plan", "PoolResult"]


@dataclass(frozen=True)
class PoolResult:
    """The answer to a pool plan: pools by level, cheapest first, and the levels that cannot hold the volumes."""

    requirements: Requirements
    candidates: tuple[PoolPlan, ...]
    misses: tuple[PoolMiss, ...]

    def to_json(self) -> dict:
        doc: dict = {"region": self.requirements.region,
                     "candidates": [dict(rank=i + 1, **p.to_json()) for i, p in enumerate(self.candidates)],
                     "evaluated": len(self.candidates) + len(self.misses),
                     "feasible": len(self.candidates),
                     "rejected": [m.to_json() for m in self.misses]}
        if not self.candidates:
            doc["nearest"] = doc["rejected"]
        return doc


def plan(req: Requirements, top: int = 5, tail: TailOptions | None = None) -> "Plan | PoolResult | MachinePlan":
    """The ``top`` cheapest feasible configurations for ``req`` (a :class:`Plan`), or for a
    pool plan the pools by level (a :class:`PoolResult`). ``tail`` sets how latency
    percentiles are checked by simulation (when the requirements bound any). Raises :class:`~iolab.errors.InputError`
    for allow-lists naming unknown catalog ids."""
    if req.pool is not None:
        from .pool import plan_pools  # pools and shares load only when a plan needs them

        plans, misses = plan_pools(req)
        return PoolResult(req, tuple(plans), tuple(misses))
    if req.workloads:
        from .machine import plan_machine

        return plan_machine(req, top, tail)
    wl = Workload.of(req)
    batches: list[Batch] = []
    excluded: list[str] = []
    if "disks" in req.search.kinds:
        batches, excluded = _disks(req, wl)
    if "share" in req.search.kinds:
        from .shares import search_shares

        batches += search_shares(req, wl, space.levels(req))
    return rank(req, wl, batches, excluded, top, tail=tail)


def _disks(req: Requirements, wl: Workload) -> tuple[list[Batch], list[str]]:
    vm_ids = space.vms(req)
    sku_ids = space.skus(req)
    cat = req.catalog
    fixed = [cat.disks[s] for s in sku_ids if s in cat.disks]
    provisioned = [cat.provisioned[s] for s in sku_ids if s in cat.provisioned]
    st = Streams.of(wl)
    clients = Clients.of(req, vm_ids, st.sizes)
    batches = search_fixed(req, wl, clients, st, fixed) + search_provisioned(req, wl, clients, st, provisioned)
    return batches, _excluded(req, clients, fixed + provisioned, batches)  # type: ignore[operator]


def _excluded(req: Requirements, clients: Clients, skus: list[DiskSku | ProvisionedDisk],
              batches: list[Batch]) -> list[str]:
    """Selected VM sizes and SKUs that no evaluated configuration uses, and why."""
    used_vms = {g for b in batches for g in b.group.used()}
    used_skus = {f.split(" ")[0] for b in batches for f in b.families.used()}
    caching = [c for c in req.search.caching if c != "none"]
    premium = [s.id for s in skus if s.tier in PREMIUM_TIERS]
    out = []
    for vm in clients.vms:
        if vm.id in used_vms:
            continue
        if not vm.premium_storage and len(premium) == len(skus):
            out.append(f"{vm.id}: takes no premium disks, and every SKU searched is premium")
        elif not vm.cache_size and len(caching) == len(req.search.caching):
            out.append(f"{vm.id}: has no host cache, and the search allows only caching {', '.join(caching)}")
        else:
            out.append(f"{vm.id}: no SKU searched can be attached to it")
    for sku in skus:
        if sku.id in used_skus:
            continue
        if not sku.host_caching and len(caching) == len(req.search.caching):
            out.append(f"{sku.id}: has no host caching (4 TiB and over, Premium SSD v2 and Ultra never), and "
                       f"the search allows only caching {', '.join(caching)}")
        elif sku.tier in PREMIUM_TIERS:
            out.append(f"{sku.id}: no VM searched takes premium disks")
        else:
            out.append(f"{sku.id}: no VM searched can attach it")
    return out
