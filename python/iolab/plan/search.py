"""``plan``: search the requirements' space, rank what is feasible, explain the rest (pure)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec
from msgspec.structs import replace

if TYPE_CHECKING:  # the search and the model load only when a plan needs them (a pool plan never does)
    from ..catalog import DiskSku, ProvisionedDisk
    from .disks import Clients
    from .machine import MachinePlan
    from .pool import PoolMiss, PoolPlan
    from .rank import Plan
    from .requirements import Requirements
    from .table import Batch
    from .tail import TailOptions
    from .workload import Workload

__all__ = ["plan", "PoolResult"]


class PoolResult(msgspec.Struct, frozen=True):
    """The answer to a pool plan: pools by level, cheapest first, and the levels that cannot hold the volumes."""

    requirements: Requirements
    candidates: tuple[PoolPlan, ...]
    misses: tuple[PoolMiss, ...]

    def to_json(self) -> dict:
        cands = [dict(rank=i + 1, **p.to_json()) for i, p in enumerate(self.candidates)]
        doc: dict = {"region": self.requirements.region,
                     "candidates": cands,
                     "evaluated": len(self.candidates) + len(self.misses),
                     "feasible": len(self.candidates),
                     "rejected": [m.to_json() for m in self.misses],
                     # one kind searched, the pool's service: its best is #1
                     "best_by_kind": [{"kind": "share", "service": self.requirements.pool.service,  # type: ignore[union-attr]
                                       "candidate": cands[0]}] if cands else [],
                     "near_misses": [m.near_json() for m in self.misses],
                     "unpriced": [_unpriced(self.requirements, p) for p in self.candidates if p.monthly_cost is None]}
        if not self.candidates:
            doc["nearest"] = doc["rejected"]
        return doc


def _unpriced(req: Requirements, pool: "PoolPlan") -> dict:
    """A pool without a price (``unpriced[]``): its level's price is missing. Every level is
    a candidate of a pool plan, the unpriced ones ranked last; this says how to price one."""
    from .cost import price_entry

    level = pool.level.id
    return {"config": pool.to_json()["config"], "missing": [level], "supply": [price_entry(req.catalog, level)]}


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

        return _arm_notice(req, plan_machine(req, top, tail), tail)
    from . import space
    from .rank import rank
    from .workload import Workload

    wl = Workload.of(req)
    batches: list[Batch] = []
    excluded: list[str] = []
    if "disks" in req.search.kinds:
        batches, excluded = _disks(req, wl)
    if "share" in req.search.kinds:
        from .shares import search_shares

        batches += search_shares(req, wl, space.levels(req))
    return _arm_notice(req, rank(req, wl, batches, excluded, top, tail=tail), tail)


ARM_NOTE = "Arm (arm64)"
"""How the note that the cheapest answer is an Arm VM begins (the CLI prints it in bold)."""


def _arm_notice(req: Requirements, result: "Plan | MachinePlan", tail: TailOptions | None) -> "Plan | MachinePlan":
    """``result`` with a note on #1 when it runs on an Arm VM and the requirements do not
    state ``require.vm.arch``: software built only for x86_64 does not run there, so the
    note names the cheapest x86_64 answer (planned again with ``arch: x86_64`` when none of
    the candidates shown is x86_64). The same for one workload and for several on one VM."""
    if not result.candidates or any(v.arch for v in req.vm_requires()):
        return result
    first = result.candidates[0]
    if first.config.vm is None or req.catalog.vms[first.config.vm].arch != "arm64":
        return result
    x86 = next((c for c in result.candidates if c.config.vm and req.catalog.vms[c.config.vm].arch == "x86_64"), None)
    where = f" (#{x86.rank})" if x86 is not None else ""
    if x86 is None and (req.workloads[0] if req.workloads else req).require is not None:
        again = plan(_on_x86(req), 1, tail)
        x86 = again.candidates[0] if not isinstance(again, PoolResult) and again.candidates else None
    if x86 is None:
        alternative = "no x86_64 configuration meets the requirements"
    else:
        from .labels import money

        cost = "unpriced" if x86.monthly_cost is None else f"{money(x86.monthly_cost)}/month"
        alternative = f"the cheapest x86_64 answer is {x86.config.describe()} at {cost}{where}"
    note = (f"{ARM_NOTE}: {first.config.vm} is an Arm VM; software built only for x86_64 (SQL Server, Oracle "
            f"Database) does not run on it. {alternative[0].upper()}{alternative[1:]}. State require.vm.arch "
            "(x86_64 or arm64) to plan for one.")
    old, first = first, replace(first, notes=(note, *first.notes))
    kinds = tuple(replace(k, candidate=first) if k.candidate is old else k for k in result.best_by_kind)
    return replace(result, candidates=(first, *result.candidates[1:]), best_by_kind=kinds)


def _on_x86(req: Requirements) -> Requirements:
    """``req`` with ``require.vm.arch: x86_64`` (on its first workload when it has several)."""
    from .requirements import VmRequire

    def x86(part: Requirements) -> Requirements:
        need = part.require
        assert need is not None
        vm = (need.vm or VmRequire()).model_copy(update={"arch": "x86_64"})
        return replace(part, require=need.model_copy(update={"vm": vm}))

    if req.workloads:
        return replace(req, workloads=(x86(req.workloads[0]), *req.workloads[1:]))
    return x86(req)


def _disks(req: Requirements, wl: Workload) -> tuple[list[Batch], list[str]]:
    from . import space

    clients, skus, tiered = disk_batches(req, wl, space.vms(req))
    batches = [b for _, b in tiered]
    return batches, _excluded(req, clients, skus, batches)  # type: ignore[arg-type]


def disk_batches(req: Requirements, wl: Workload, vm_ids: list[str]) -> tuple["Clients", list, list[tuple[str | None, Batch]]]:
    """Every disk batch of ``req``'s SKUs on the VM sizes ``vm_ids`` (fixed-size, provisioned,
    size-scaled), each with the Google Cloud disk type whose per-machine caps are its rows'
    VM figures (None: the VM's uncached caps); the VM sizes as :class:`Clients` and the SKUs
    searched. One plan and several workloads on one machine both search with it."""
    from . import space
    from .disks import Clients, Streams, search_fixed
    from .provisioned import search_provisioned
    from .scaled import search_scaled

    sku_ids = space.skus(req)
    cat = req.catalog
    fixed = [cat.disks[s] for s in sku_ids if s in cat.disks]
    provisioned = [cat.provisioned[s] for s in sku_ids if s in cat.provisioned]
    scaled = [cat.scaled[s] for s in sku_ids if s in cat.scaled]
    st = Streams.of(wl)
    clients = Clients.of(req, vm_ids, st.sizes)
    out: list[tuple[str | None, Batch]] = [(None, b) for b in search_fixed(req, wl, clients, st, fixed)]
    by_tier: dict[str | None, list] = {}
    for sku in provisioned:  # another cloud's disk types: each machine's own caps for the type
        by_tier.setdefault(sku.tier if sku.cloud != "azure" else None, []).append(sku)
    for tier, skus in by_tier.items():
        found = search_provisioned(req, wl, clients if tier is None else Clients.of(req, vm_ids, st.sizes, tier),
                                   st, skus)
        out += [(tier, b) for b in found]
    out += [(None, b) for b in search_scaled(req, wl, clients, st, scaled)]
    return clients, fixed + provisioned + scaled, out


def _excluded(req: Requirements, clients: Clients, skus: list[DiskSku | ProvisionedDisk],
              batches: list[Batch]) -> list[str]:
    """Selected VM sizes and SKUs that no evaluated configuration uses, and why."""
    from .disks import PREMIUM_TIERS

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
