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
  ``R = Σ share × (Z + Σ_caps D × stretch(U))`` (a throttle's M/D/1 queue,
  :func:`iolab.analytic.stretch`).

A test checks these figures against the compiled network of sampled configurations.
"""

from __future__ import annotations

import math
from functools import lru_cache

import msgspec
import numpy as np

from ..analytic import residence
from ..catalog import DiskSku, ProvisionedDisk, Vm
from ..compile.disks import EBS_TIERS, SEQUENTIAL, touched
from ..network import Cap
from ..units import format_size
from .config import Config, DiskChoice
from .cost import disk_price, vm_price
from .requirements import Requirements
from .table import Batch, Labels
from .workload import Workload

__all__ = ["Clients", "Streams", "search_fixed", "by_class", "open_latency", "striped_open", "IO_UNIT", "PREMIUM_TIERS"]

IO_UNIT = 256 * 1024
PREMIUM_TIERS = ("premium", "premium-v2", "ultra")


class Streams(msgspec.Struct):
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


class Clients(msgspec.Struct):
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
    def of(cls, req: Requirements, ids: list[str], sizes: list[int], tier: str | None = None) -> "Clients":
        """The VM sizes ``ids``; for disks of ``tier`` (a Google Cloud disk type), each
        machine's own caps for that tier (the lower of its read and write limits) as its
        uncached caps, and whether it takes that tier as its premium support."""
        vms = [req.catalog.vms[i] for i in ids]
        if tier is not None:
            vms = [_tier_view(v, tier) for v in vms]

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


def _tier_view(vm: Vm, tier: str) -> Vm:
    """``vm`` as the planner sees it for disks of ``tier``: the machine's own caps for the
    tier (the lower of reads' and writes') as its uncached caps, and premium support meaning
    that it takes the tier."""
    caps = vm.disk_caps(tier)
    update: dict = {"premium_storage": vm.premium_storage and vm.takes(tier)}
    if caps is not None:
        (ri, rb), (wi, wb) = caps
        update.update(uncached_iops=min(ri, wi), uncached_bandwidth=min(rb, wb))
    return vm.model_copy(update=update)


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
    ``R = Z + Σ_k copies × response × stretch(U)`` (:func:`iolab.analytic.residence`: a
    throttle's M/D/1), inf where a cap with demand is saturated.
    """
    util: dict[str, np.ndarray] = {}
    latency = delay.copy()
    with np.errstate(divide="ignore", invalid="ignore"):
        for k, d in on_path.items():
            u = lam * (d + background.get(k, 0.0))
            util[k] = u
            r = response.get(k, d) if response else d
            latency = latency + copies.get(k, 1) * residence(r, u)
    return util, latency


def striped_open(lam: float, share: np.ndarray, m: np.ndarray, part: np.ndarray, ops: np.ndarray,
                 d_u: np.ndarray, lat: np.ndarray, n: np.ndarray, vm_path: np.ndarray, iops: np.ndarray,
                 bandwidth: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """:func:`open_latency` of rows of ``n`` striped disks, each capped at ``iops`` (counted
    IOs/s) and ``bandwidth`` (bytes/s): per stream (columns) ``share`` of the IOs, each
    touching ``m`` members that carry ``part`` bytes and ``ops`` counted IOs each, ``d_u``
    the VM's demand and ``lat`` the disk's unloaded latency; ``vm_path`` the VM's demand
    per IO over the mix."""
    nn = n[:, None].astype(float)
    d = np.maximum(ops / iops[:, None], part / bandwidth[:, None])  # per member visit
    on_path = {"vm": vm_path, "disk": (share * m / nn * d).sum(axis=1)}
    response = {"disk": (share / nn * d).sum(axis=1)}  # a striped IO's members run in parallel
    z = (share * np.maximum(0.0, lat - d_u - d)).sum(axis=1)
    return open_latency(lam, on_path, {}, {"disk": n}, z, response)


def search_fixed(req: Requirements, wl: Workload, clients: Clients, st: Streams,
                 skus: list[DiskSku]) -> list[Batch]:
    """Every (fixed-size SKU, caching mode) family × eligible VM × count, stacked into one
    batch (family by family, then VM by VM, then count by count) and evaluated at once.

    A SKU that offers performance plus is searched twice, with its standard and with its
    expanded limits (same price), unless the search excludes it (``performance_plus: false``)."""
    skus, plus = with_performance_plus(skus, req.search.performance_plus)
    rows = stack_rows(clients, skus, req.search.caching)
    if not len(rows.v):
        return []
    return [_evaluate(req, wl, clients, st, skus, rows, plus)]


def with_performance_plus(skus: list[DiskSku], search: bool) -> tuple[list[DiskSku], list[bool]]:
    """The SKUs and, after each that offers performance plus (when ``search``), itself with
    the expanded limits; and for each entry whether it is the performance plus one."""
    out: list[DiskSku] = []
    plus: list[bool] = []
    for sku in skus:
        out.append(sku)
        plus.append(False)
        if search and sku.performance_plus is not None:
            out.append(sku.model_copy(update={"iops": sku.performance_plus.iops,
                                              "bandwidth": sku.performance_plus.bandwidth}))
            plus.append(True)
    return out, plus


def alike(clients: Clients) -> tuple[Clients, np.ndarray]:
    """VM sizes that the model cannot tell apart (the same demands per IO at both caps, host
    cache size and premium support) as one class each: the classes as clients (one
    representative each, with the largest data-disk maximum of its class) and each VM's class.

    A row's figures depend on its VM only through these, so each (family, class, count) is
    evaluated once, with the same arithmetic, and copied to the rows of every VM in it."""
    key = np.column_stack([clients.d_uncached, clients.d_cached, clients.cache_size, clients.premium])
    _, first, of = np.unique(key, axis=0, return_index=True, return_inverse=True)
    of = of.ravel()
    most = np.zeros(len(first), dtype=clients.max_disks.dtype)
    np.maximum.at(most, of, clients.max_disks)
    return Clients([clients.ids[i] for i in first.tolist()], [clients.vms[i] for i in first.tolist()],
                   clients.price[first], clients.d_uncached[first], clients.d_cached[first],
                   clients.cache_size[first], clients.premium[first], most), of


def by_class(clients: Clients, skus: list[DiskSku] | list[ProvisionedDisk], caching: list[str],
             rows: Rows) -> tuple[Clients, Rows, np.ndarray]:
    """The classes of alike VM sizes (:func:`alike`), their stacked rows (family by family,
    class by class, count by count) and, for each of ``rows``, the row of its family, class
    and count."""
    classes, of = alike(clients)
    _, _, few = cell_counts(classes, skus, caching)
    _, _, counts = cell_counts(clients, skus, caching)
    families = len(few) // max(len(classes.ids), 1)
    # Cell (family k, VM j) takes the rows of cell (k, class of j): each row's offset in its
    # cell is the same in both stackings.
    cell = (np.arange(families)[:, None] * len(classes.ids) + of[None, :]).ravel()
    shift = (np.cumsum(few) - few)[cell] - (np.cumsum(counts) - counts)
    at = np.repeat(shift, counts) + np.arange(len(rows.n))
    return classes, stack_rows(classes, skus, caching), at


def eligible(clients: Clients, sku: DiskSku | ProvisionedDisk, caching: str) -> np.ndarray:
    """VMs that may attach ``sku`` with ``caching``: premium tiers need premium support;
    host caching needs a SKU under 4 TiB (never Premium SSD v2 or Ultra) and a VM with a cache."""
    ok = np.ones(len(clients.ids), dtype=bool)
    if sku.tier in PREMIUM_TIERS or sku.cloud != "azure":  # another cloud's disks: the VMs that take the type
        ok &= clients.premium
    if caching != "none":
        ok &= bool(sku.host_caching) & (clients.cache_size > 0)
    return ok


class Rows(msgspec.Struct):
    """Stacked configurations: for each row its family (index into ``sku``/``caching``,
    one family per SKU and caching mode), SKU (index into the SKU list), VM (index into
    the clients) and disk count. Rows come family by family, VM by VM, count by count."""

    sku: np.ndarray          # per family
    caching: list[str]       # per family
    f: np.ndarray
    s: np.ndarray
    v: np.ndarray
    n: np.ndarray


def cell_counts(clients: Clients, skus: list[DiskSku] | list[ProvisionedDisk],
                caching: list[str]) -> tuple[np.ndarray, list[str], np.ndarray]:
    """The families (SKU index, caching mode: SKU by SKU) and how many rows each (family,
    VM) cell holds (0 when the VM may not attach the family), family by family, VM by VM."""
    fam_sku = np.repeat(np.arange(len(skus)), len(caching))
    fam_caching = [c for _ in skus for c in caching]
    ok = np.array([eligible(clients, skus[k], c) for k, c in zip(fam_sku.tolist(), fam_caching)],
                  dtype=bool).reshape(len(fam_caching), len(clients.ids))
    return fam_sku, fam_caching, (ok * clients.max_disks[None, :]).ravel()


def stack_rows(clients: Clients, skus: list[DiskSku] | list[ProvisionedDisk], caching: list[str]) -> Rows:
    """Every family (SKU × caching mode, in that order) × eligible VM × count 1..max, without
    a Python loop per VM or per row."""
    fam_sku, fam_caching, counts = cell_counts(clients, skus, caching)
    vms = len(clients.ids)
    per_family = counts.reshape(len(fam_caching), vms).sum(axis=1)
    n = np.repeat(1 - (np.cumsum(counts) - counts), counts) + np.arange(int(counts.sum()))
    f = np.repeat(np.arange(len(fam_caching)), per_family)
    v = np.repeat(np.tile(np.arange(vms), len(fam_caching)), counts)
    return Rows(fam_sku, fam_caching, f, np.repeat(fam_sku, per_family), v, n)


def counted_ops(req: Requirements, st: "Streams", part: np.ndarray, unit: np.ndarray, tiers: list[str]) -> np.ndarray:
    """IOs a volume counts per member visit (rows, streams), as the compiler
    (:mod:`iolab.compile.disks`) counts them: an IO part of up to ``unit`` bytes is one, a
    larger one splits; on a volume that merges physically sequential IOs (Amazon EBS: the
    rows' disk ``tiers``) a sequential job's smaller parts merge up to the unit, so each
    carries ``part / unit`` of a counted IO."""
    merges = np.array([t in EBS_TIERS for t in tiers], dtype=bool)[:, None]
    sequential = np.array([req.jobs[j].fio.rw in SEQUENTIAL for j in st.job.tolist()], dtype=bool)[None, :]
    return np.where(merges & sequential & (part < unit), part / unit, np.maximum(1.0, np.ceil(part / unit)))


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


def _demands(skus: list[DiskSku], part: np.ndarray) -> np.ndarray:
    """``out[s, n-1, b]``: one member's demand (seconds) at SKU ``s``'s cap for the bytes it
    carries with ``n`` disks, IO size ``b`` (:meth:`Cap.demand`, once per distinct size)."""
    values, inverse = np.unique(part, return_inverse=True)
    out = np.empty((len(skus), *part.shape))
    for k, sku in enumerate(skus):
        cap = Cap(sku.iops, sku.bandwidth, sku.io_unit or IO_UNIT)
        out[k] = np.array([cap.demand(int(x)) for x in values.tolist()])[inverse].reshape(part.shape)
    return out


def _evaluate(req: Requirements, wl: Workload, cl: Clients, st: Streams, skus: list[DiskSku], rows: Rows,
              plus: list[bool]) -> Batch:
    """The open model over every stacked row: evaluated once per (family, class of alike VMs,
    count) by :func:`_model`, then copied to each row; the cost is each row's own."""
    classes, few, at = by_class(cl, skus, req.search.caching, rows)
    util, latency, path = _model(req, wl, classes, st, skus, few)
    util = {k: u[at] for k, u in util.items()}
    latency, path = latency[at], {k: d[at] for k, d in path.items()}
    rows_s, rows_v, rows_n = rows.s, rows.v, rows.n
    n = rows_n.astype(float)
    price = np.array([np.nan if (p := disk_price(sku)) is None else p * req.clients for sku in skus])
    cost = cl.price[rows_v] + price[rows_s] * n
    caching = rows.caching

    def config(i: int) -> Config:
        return Config(cl.ids[rows_v[i]], req.clients,
                      (DiskChoice(skus[rows_s[i]].id, int(rows_n[i]), caching[rows.f[i]],
                                  performance_plus=plus[rows_s[i]]),))

    def facts(i: int) -> list[tuple[str, str]]:
        return disk_facts(req, cl, int(rows_v[i]), int(rows_n[i]), skus[rows_s[i]])

    def variant(i: int) -> tuple:
        return (cl.ids[rows_v[i]], skus[rows_s[i]].id, int(rows_n[i]))

    families = Labels([f"{skus[k].id}{' performance plus' if plus[k] else ''} caching {c}"
                       for k, c in zip(rows.sku.tolist(), caching)], rows.f)
    return Batch("fixed-size disks", cost, latency, util, Labels(cl.ids, rows_v), config, facts, variant,
                 path, rows_n, families)


def _model(req: Requirements, wl: Workload, cl: Clients, st: Streams, skus: list[DiskSku],
           rows: Rows) -> tuple[dict[str, np.ndarray], np.ndarray, dict[str, np.ndarray]]:
    """The open model over stacked rows, stream by stream (a few numpy calls per stream):
    utilization per resource kind (capacity included), mean latency, and the demand per IO
    at the VM's caps on the response path."""
    rows_s, rows_v, rows_n = rows.s, rows.v, rows.n
    max_n = int(rows_n.max())
    members, part = stripe_tables(st.sizes, req.search.stripe_size, max_n)
    disk_d = _demands(skus, part).reshape(len(skus) * max_n, len(st.sizes))   # per member visit
    sn = rows_s * max_n + (rows_n - 1)
    mode_of = {"none": 0, "readonly": 1, "readwrite": 2}
    mode = np.array([mode_of[c] for c in rows.caching], dtype=np.int8)[rows.f]
    cached = mode > 0
    any_cached = bool(cached.any())
    rw = mode == 2
    any_rw = bool(rw.any())
    hit_latency = req.catalog.defaults.cache_hit_latency
    n = rows_n.astype(float)
    zero = np.zeros(len(rows_v))
    A = {"vm": zero.copy(), "vm-cache": zero.copy(), "disk": zero.copy()}
    G = {"vm": zero.copy(), "disk": zero.copy()}
    Z = zero.copy()
    R = zero.copy()  # the disks' share of the response time: one member per striped IO
    ratio = None
    if any_cached and st.read.any():
        # Warm read hit ratio per row: the cache over the job's working set, which follows
        # the volume's capacity when a job gives no size.
        volume = (np.array([sku.size for sku in skus], dtype=np.int64)[:, None] * np.arange(1, max_n + 1)).ravel()
        ws = np.column_stack([wl.working_sets(j, volume) for j in range(len(wl.jobs))]).astype(float)
        ratio = (ws, cl.cache_size[rows_v])
    read_lat = np.array([sku.read_latency for sku in skus])[rows_s]
    write_lat = np.array([sku.write_latency for sku in skus])[rows_s]
    n_1 = rows_n - 1
    for c in range(len(st.share)):
        q, b = st.share[c], st.size_index[c]
        d_u = cl.d_uncached[:, b][rows_v]
        m = members[:, b][n_1]
        d_d = disk_d[:, b][sn]
        lat = read_lat if st.read[c] else write_lat
        # Caching none is the cached formula with no cached cap and no hits: the same figures
        # (scalars where no row has a cache).
        d_c = np.where(cached, cl.d_cached[:, b][rows_v], 0.0) if any_cached else 0.0
        h: np.ndarray | float = 0.0
        if st.read[c] and ratio is not None:
            ws, size = ratio
            with np.errstate(divide="ignore", invalid="ignore"):
                h = np.where(cached, np.minimum(1.0, size / ws[sn, st.job[c]]), 0.0)
        miss_z = np.maximum(0.0, lat - d_c - d_u - d_d)
        hit_z = np.maximum(0.0, hit_latency - d_c)
        if any_cached:
            A["vm-cache"] += q * d_c
        if st.read[c] or not any_rw:
            miss = 1 - h
            qm = q * miss
            A["vm"] += qm * d_u
            A["disk"] += qm * m / n * d_d
            R += qm / n * d_d
            Z += q * (h * hit_z + miss * miss_z)
            continue
        # Writes with ReadWrite caching are done in the cache; the flush loads VM and disks later.
        disk = q * m / n * d_d
        A["vm"] += np.where(rw, 0.0, q * d_u)
        A["disk"] += np.where(rw, 0.0, disk)
        R += np.where(rw, 0.0, q / n * d_d)
        Z += np.where(rw, q * hit_z, q * miss_z)
        G["vm"] += np.where(rw, q * d_u, 0.0)
        G["disk"] += np.where(rw, disk, 0.0)
    util, latency = open_latency(wl.per_client, A, G, {"disk": rows_n}, Z, {"disk": R})
    need = (req.require.capacity or 0) / req.clients if req.require else 0
    util["capacity"] = need / (n * np.array([sku.size for sku in skus], dtype=float)[rows_s])
    return util, latency, {"vm": A["vm"], "vm-cache": A["vm-cache"]}


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
