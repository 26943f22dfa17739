"""Managed disks on a VM: every VM size × fixed-size SKU × count × host caching, evaluated in bulk.

The physics is the compiler's (:mod:`iolab.compile.disks`), evaluated with the open model
of :func:`iolab.analytic.solve_open` for many configurations at once:

- per IO of ``b`` bytes, the demand at a cap is :meth:`iolab.network.Cap.demand` of the
  same caps the compiler builds (the VM's uncached and cached caps in 256 KiB units, each
  disk's cap); a striped IO touches :func:`iolab.compile.disks.touched` members, each
  carrying ``ceil(b / m)`` bytes, so each of the ``n`` members sees ``m / n`` of the IOs;
- host cache: a warm read hit ratio ``min(1, cache size / working set)``; ReadOnly hits
  use the cached cap only, misses and writes both caps and the disks; ReadWrite writes use
  the cached cap and load the uncached cap and the disks in the background;
- the unloaded-latency rule: a route's delay is its stated latency minus its cap demands
  (never below zero);
- open model at the required per-client rate λ: ``U = λ Σ share × D`` per cap, and
  ``R = Σ share × (Z + Σ_caps D / (1 − U))``.

A test checks these figures against the compiled network of sampled configurations.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..catalog import DiskSku, ProvisionedDisk, Vm
from ..compile.disks import touched
from ..network import Cap
from ..units import format_size
from .config import Config, DiskChoice
from .cost import disk_price, vm_price
from .requirements import Requirements
from .table import Batch
from .workload import Workload

__all__ = ["Clients", "Streams", "search_fixed", "open_latency", "IO_UNIT", "PREMIUM_TIERS"]

IO_UNIT = 256 * 1024
PREMIUM_TIERS = ("premium", "premium-v2", "ultra")


@dataclass
class Streams:
    """The workload's streams as arrays: ``share`` of all IOs, index into ``sizes`` (the
    distinct IO sizes), job index, and whether each is a read."""

    sizes: list[int]
    share: np.ndarray
    size_index: np.ndarray
    job: np.ndarray
    read: np.ndarray

    @classmethod
    def of(cls, wl: Workload) -> "Streams":
        sizes = sorted({s.bytes for s in wl.streams})
        return cls(sizes, np.array([s.share for s in wl.streams]),
                   np.array([sizes.index(s.bytes) for s in wl.streams]),
                   np.array([s.job for s in wl.streams]),
                   np.array([s.direction == "read" for s in wl.streams]))


@dataclass
class Clients:
    """The selected VM sizes as arrays: monthly price of all clients (NaN when unpriced),
    per-IO demand at the uncached and cached caps for each distinct IO size (0 where the
    VM has no such cap), host cache size (0: none), premium support, data-disk maximum."""

    ids: list[str]
    vms: list[Vm]
    price: np.ndarray
    d_uncached: np.ndarray
    d_cached: np.ndarray
    cache_size: np.ndarray
    premium: np.ndarray
    max_disks: np.ndarray

    @classmethod
    def of(cls, req: Requirements, ids: list[str], sizes: list[int]) -> "Clients":
        vms = [req.catalog.vms[i] for i in ids]

        def demand(vm: Vm, iops: float | None, bw: float | None) -> list[float]:
            cap = Cap(iops, bw, IO_UNIT) if (iops or bw) else None
            return [cap.demand(b) if cap else 0.0 for b in sizes]

        price = [vm_price(v) for v in vms]
        limit = req.search.max_disks or 10**6
        return cls(
            ids, vms,
            np.array([np.nan if p is None else p * req.clients for p in price]),
            np.array([demand(v, v.uncached_iops, v.uncached_bandwidth) for v in vms]).reshape(len(vms), len(sizes)),
            np.array([demand(v, v.cached_iops, v.cached_bandwidth) for v in vms]).reshape(len(vms), len(sizes)),
            np.array([float(int(v.cache_size)) if v.cache_size else 0.0 for v in vms]),
            np.array([v.premium_storage for v in vms], dtype=bool),
            np.array([min(v.max_data_disks, limit) for v in vms], dtype=int),
        )


def open_latency(lam: float, on_path: dict[str, np.ndarray], background: dict[str, np.ndarray],
                 copies: dict[str, np.ndarray | int], delay: np.ndarray,
                 response: dict[str, np.ndarray] | None = None) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Open-model utilization per cap kind and mean latency, row by row.

    ``on_path[k]``: demand per IO (seconds) at one cap of kind ``k`` on the response path,
    share-weighted over the streams; ``background[k]``: the same off the path; ``copies[k]``:
    how many identical caps of that kind each IO's demand is spread over (the disks of a
    stripe: the demand given is per member). ``response[k]`` (default ``on_path[k]``): the
    part of that demand that adds to the response time — a striped IO's members run in
    parallel, so it counts one member, not all it touches (as :func:`iolab.network.walk`).
    ``R = Z + Σ_k copies × response / (1 − U)``, inf where a cap with demand is saturated.
    """
    util: dict[str, np.ndarray] = {}
    latency = delay.copy()
    for k, d in on_path.items():
        u = lam * (d + background.get(k, 0.0))
        util[k] = u
        r = response.get(k, d) if response else d
        with np.errstate(divide="ignore", invalid="ignore"):
            term = np.where(d > 0, np.where(u < 1.0, r / (1.0 - u), np.inf), 0.0)
        latency = latency + copies.get(k, 1) * term
    return util, latency


def search_fixed(req: Requirements, wl: Workload, clients: Clients, st: Streams,
                 skus: list[DiskSku]) -> list[Batch]:
    """One batch per (fixed-size SKU, caching mode) with every eligible VM × count."""
    batches: list[Batch] = []
    for sku in skus:
        for caching in req.search.caching:
            rows_v, rows_n = _rows(clients, sku, caching)
            if len(rows_v):
                batches.append(_batch(req, wl, clients, st, sku, caching, rows_v, rows_n))
    return batches


def eligible(clients: Clients, sku: DiskSku | ProvisionedDisk, caching: str) -> np.ndarray:
    """VMs that may attach ``sku`` with ``caching``: premium tiers need premium support;
    host caching needs a SKU under 4 TiB (never Premium SSD v2 or Ultra) and a VM with a cache."""
    ok = np.ones(len(clients.ids), dtype=bool)
    if sku.tier in PREMIUM_TIERS:
        ok &= clients.premium
    if caching != "none":
        ok &= bool(sku.host_caching) & (clients.cache_size > 0)
    return ok


def _rows(clients: Clients, sku: DiskSku, caching: str) -> tuple[np.ndarray, np.ndarray]:
    ok = eligible(clients, sku, caching)
    vs = np.nonzero(ok)[0]
    counts = clients.max_disks[vs]
    return np.repeat(vs, counts), np.concatenate([np.arange(1, c + 1) for c in counts]) if len(vs) else np.zeros(0, int)


def stripe_tables(sizes: list[int], stripe: int, max_n: int) -> tuple[np.ndarray, np.ndarray]:
    """``members[n-1, b]``: stripe members an IO of size b touches with n disks; ``part``:
    bytes each member carries (``ceil(b / members)``)."""
    return _stripe_tables(tuple(sizes), stripe, max_n)


@lru_cache(maxsize=64)
def _stripe_tables(sizes: tuple[int, ...], stripe: int, max_n: int) -> tuple[np.ndarray, np.ndarray]:
    members = np.array([[touched(b, stripe, n) for b in sizes] for n in range(1, max_n + 1)], dtype=float)
    part = np.array([[math.ceil(b / touched(b, stripe, n)) for b in sizes] for n in range(1, max_n + 1)])
    members, part = members.reshape(max_n, len(sizes)), part.reshape(max_n, len(sizes))
    members.flags.writeable = False
    part.flags.writeable = False
    return members, part


def _batch(req: Requirements, wl: Workload, cl: Clients, st: Streams, sku: DiskSku, caching: str,
           rows_v: np.ndarray, rows_n: np.ndarray) -> Batch:
    max_n = int(rows_n.max())
    members, part = stripe_tables(st.sizes, req.search.stripe_size, max_n)
    cap = Cap(sku.iops, sku.bandwidth, sku.io_unit or IO_UNIT)
    disk_d = np.vectorize(cap.demand, otypes=[float])(part)          # (max_n, B) per member visit
    hit_latency = req.catalog.defaults.cache_hit_latency
    # Working set per job and count (it follows the volume's capacity when a job gives no size).
    ws = np.array([[wl.working_set(j, n * sku.size) for j in range(len(wl.jobs))] for n in range(1, max_n + 1)],
                  dtype=float)
    n = rows_n.astype(float)
    zero = np.zeros(len(rows_v))
    A = {"vm": zero.copy(), "vm-cache": zero.copy(), "disk": zero.copy()}
    G = {"vm": zero.copy(), "disk": zero.copy()}
    Z = zero.copy()
    R = zero.copy()  # the disks' share of the response time: one member per striped IO
    for c in range(len(st.share)):
        q, b = st.share[c], st.size_index[c]
        d_u = cl.d_uncached[rows_v, b]
        d_c = cl.d_cached[rows_v, b]
        m = members[rows_n - 1, b]
        d_d = disk_d[rows_n - 1, b]
        lat = sku.read_latency if st.read[c] else sku.write_latency
        if caching == "none":
            A["vm"] += q * d_u
            A["disk"] += q * m / n * d_d
            R += q / n * d_d
            Z += q * np.maximum(0.0, lat - d_u - d_d)
            continue
        miss_z = np.maximum(0.0, lat - d_c - d_u - d_d)
        hit_z = np.maximum(0.0, hit_latency - d_c)
        if st.read[c]:
            h = np.minimum(1.0, cl.cache_size[rows_v] / ws[rows_n - 1, st.job[c]])
            A["vm-cache"] += q * d_c
            A["vm"] += q * (1 - h) * d_u
            A["disk"] += q * (1 - h) * m / n * d_d
            R += q * (1 - h) / n * d_d
            Z += q * (h * hit_z + (1 - h) * miss_z)
        elif caching == "readonly":
            A["vm-cache"] += q * d_c
            A["vm"] += q * d_u
            A["disk"] += q * m / n * d_d
            R += q / n * d_d
            Z += q * miss_z
        else:  # readwrite: the write is done in the cache; the flush loads VM and disks later
            A["vm-cache"] += q * d_c
            Z += q * hit_z
            G["vm"] += q * d_u
            G["disk"] += q * m / n * d_d
    util, latency = open_latency(wl.per_client, A, G, {"disk": rows_n}, Z, {"disk": R})
    need = (req.require.capacity or 0) / req.clients if req.require else 0
    util["capacity"] = need / (n * sku.size)
    price = disk_price(sku)
    cost = cl.price[rows_v] + (np.nan if price is None else price * req.clients) * n

    def config(i: int) -> Config:
        return Config(cl.ids[rows_v[i]], req.clients, (DiskChoice(sku.id, int(rows_n[i]), caching),))

    def facts(i: int) -> list[str]:
        return disk_facts(req, cl, int(rows_v[i]), int(rows_n[i]), sku)

    def variant(i: int) -> tuple:
        return (cl.ids[rows_v[i]], sku.id, int(rows_n[i]))

    group = list(map(cl.ids.__getitem__, rows_v.tolist()))
    return Batch(f"{sku.id} caching {caching}", cost, latency, util, group, config, facts, variant, {"vm": A["vm"], "vm-cache": A["vm-cache"]}, rows_n)


def disk_facts(req: Requirements, cl: Clients, v: int, n: int,
               sku: DiskSku | ProvisionedDisk) -> list[tuple[str, str]]:
    """Catalog rules that limit VM ``v`` with ``n`` disks of ``sku``, each with the resource
    kind it bears on, for explanations."""
    vm = cl.vms[v]
    out = []
    if n >= cl.max_disks[v]:
        if req.search.max_disks is not None and req.search.max_disks < vm.max_data_disks:
            text = f"search.max_disks is {req.search.max_disks}"
        else:
            text = f"{vm.id} takes at most {vm.max_data_disks} data disks"
        out += [("disk", text), ("capacity", text)]
    if not vm.premium_storage:
        out.append(("disk", f"{vm.id} takes no premium disks"))
    if "readonly" in req.search.caching or "readwrite" in req.search.caching:
        if not cl.cache_size[v]:
            out.append(("vm", f"{vm.id} has no host cache"))
        elif not sku.host_caching:
            out.append(("vm", f"{sku.id} has no host caching ({format_size(4 * 2**40)} and over, "
                              "Premium SSD v2, Ultra)"))
    return out
