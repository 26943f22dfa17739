"""Several workloads on one machine: one VM with a volume of managed disks for each.

Each workload (``workloads.NAME`` in a requirements file: its jobs, requirements and
allowed host caching) is searched on its own first — every VM × SKU × count × caching, as
for one workload. A row that fails its own requirements alone fails with company too (the
VM's caps only get busier), so only rows that pass alone are combined. The workloads then
share the VM: its uncached and cached caps carry the sum of their loads, and its data-disk
slots the sum of their disks. A Compute Engine machine caps each disk type apart: its caps
for a type (``disk_limits``) carry the loads of the workloads whose volumes use that type
only, and a type it has no caps for (Hyperdisk) falls to its uncached caps, as the compiler's
(:meth:`iolab.compile.vm.ClientVm.disk_cap`). A workload's mean latency is its own part
(disks, delays) plus its demand at each VM cap stretched by that cap's *combined*
utilization, ``D / (1 − U_total)``.

Per VM and workload the rows kept for combining are, for each host-caching load and disk
count, those no cheaper row beats on latency, at most :data:`MAX_COMBINATIONS` ^ (1 / W)
of the cheapest of them (W workloads); every combination of them is evaluated. The VM's
margin is the strictest of the workloads' ``max_utilization``.
"""

from __future__ import annotations

import math
from functools import cached_property

import msgspec
import numpy as np

from ..analytic import residence, stretch, stretched
from ..errors import SchemaError
from ..network import Network
from ..units import format_duration, format_ops, format_rate
from . import space
from .config import Config
from .cost import bill, price_entry, unpriced
from .labels import dearer
from .disks import Clients, Streams
from .prediction import LoadPrediction, predict_at_load
from .rank import Candidate, KindBest, Miss, Unpriced, failing_kinds, lacks, over_margin
from .requirements import Requirements
from .search import disk_batches
from .table import TOLERANCE, Batch, Limits, words
from .tail import TailCheck, TailOptions, ios_for, simulate_open, tail_of
from .workload import Workload

__all__ = ["MachinePlan", "MachineCandidate", "plan_machine", "MAX_COMBINATIONS"]

MAX_COMBINATIONS = 4096
"""Most combinations of the workloads' volumes evaluated per VM size."""
_VM_KINDS = ("vm", "vm-cache")
"""The VM caps every machine may have; a Compute Engine machine's caps per disk type add
one kind each (:func:`tier_kind`)."""
_TIER = "vm:"


def tier_kind(tier: str) -> str:
    """The kind of a machine's own caps over its disks of ``tier`` (``vm:pd-ssd``)."""
    return _TIER + tier


def kind_words(kind: str, cloud: str | None) -> str:
    """How a VM cap kind reads in an explanation: ``the machine's pd-ssd limit`` for a
    Compute Engine machine's caps of one disk type, else :func:`~iolab.plan.table.words`."""
    if kind.startswith(_TIER):
        return f"the machine's {kind[len(_TIER):]} limit"
    return words(kind, cloud)


class _Part(msgspec.Struct, dict=True):  # a __dict__ for the cached properties
    """One workload's rows on every VM, flattened."""

    req: Requirements
    wl: Workload
    limits: Limits
    batches: list[Batch]
    which: np.ndarray
    row: np.ndarray
    vm: np.ndarray
    disk_cost: np.ndarray
    base: np.ndarray                       # latency without the VM caps' terms
    path: dict[str, np.ndarray]            # demand per IO on the path at each VM cap kind (vm, vm-cache, vm:TIER)
    load: dict[str, np.ndarray]            # utilization this workload alone puts on each VM cap kind
    count: np.ndarray
    ok: np.ndarray                         # passes its own requirements alone
    ratio: np.ndarray                      # how far from passing alone (Batch.ratio)

    def batch(self, i: int) -> tuple[Batch, int]:
        return self.batches[int(self.which[i])], int(self.row[i])

    @cached_property
    def key(self) -> np.ndarray:
        """Each feasible row's key for :func:`_kept`, as a small integer (-1 for the others):
        the same for rows whose VM-cap loads (to 9 digits), demands (to 12) and disk count
        are the same."""
        ok = np.nonzero(self.ok)[0]
        columns = ([_rounded(u[ok], 9) for u in self.load.values()] + [_rounded(d[ok], 12) for d in self.path.values()]
                   + [self.count[ok]])
        code = np.zeros(len(ok), dtype=np.int64)
        for column in columns:  # one column at a time, renumbered so that the codes stay small
            values, inverse = np.unique(column, return_inverse=True)
            code = np.unique(code * len(values) + inverse.ravel(), return_inverse=True)[1].ravel()
        out = np.full(len(self.ok), -1, dtype=np.int64)
        out[ok] = code
        return out

    @cached_property
    def base_rank(self) -> np.ndarray:
        """Each row's ``base`` latency as its rank among them (equal latencies, equal ranks)."""
        return np.unique(self.base, return_inverse=True)[1].ravel()


class WorkloadFigures(msgspec.Struct, frozen=True):
    """One workload of a candidate at its required load: latency (mean, seconds), and its
    simulated percentiles when bounded."""

    name: str
    iops: float
    bandwidth: float
    latency: float
    tail: TailCheck | None = None

    def to_json(self) -> dict:
        doc: dict = {"iops": round(self.iops, 1), "bandwidth": float(round(self.bandwidth)),
                     "latency": {"mean": round(self.latency, 9) if math.isfinite(self.latency) else None}}
        if self.tail is not None:
            doc["simulated"] = self.tail.to_json()
        return doc


class MachineCandidate(Candidate, frozen=True):
    """A candidate machine, with each workload's figures."""

    workloads: tuple[WorkloadFigures, ...] = ()

    def to_json(self) -> dict:
        doc = super().to_json()
        doc["workloads"] = {w.name: w.to_json() for w in self.workloads}
        return doc


class MachinePlan(msgspec.Struct, frozen=True):
    """The answer for several workloads on one machine: as a :class:`~iolab.plan.Plan`,
    ``rejected`` (cheaper VMs that fail, cheapest first), ``nearest`` (when nothing is
    feasible), ``near_misses`` (closest first), ``best_by_kind`` (the one kind searched,
    disks) and ``unpriced`` (feasible layouts without a price, one per VM and set of
    missing prices)."""

    requirements: Requirements
    parts: tuple[Workload, ...]
    candidates: tuple[MachineCandidate, ...]
    evaluated: int
    feasible: int
    rejected: tuple[Miss, ...]
    nearest: tuple[Miss, ...] = ()
    checked: int = 0
    excluded: tuple[str, ...] = ()
    near_misses: tuple[Miss, ...] = ()
    best_by_kind: tuple[KindBest, ...] = ()
    unpriced: tuple[Unpriced, ...] = ()
    others: tuple[Miss, ...] = ()

    def to_json(self) -> dict:
        req = self.requirements
        need = {}
        for part, wl in zip(req.workloads, self.parts):
            r = part.require
            assert r is not None
            need[part.name] = {"iops": round(wl.rate, 1), "bandwidth": float(round(wl.bandwidth)),
                               "latency": r.latency, "capacity": r.capacity, "max_utilization": r.max_utilization,
                               "percentiles": dict(r.percentiles), "caching": list(part.search.caching)}
        doc: dict = {"required": {"workloads": need, "clients": req.clients}, "region": req.region,
                     "candidates": [c.to_json() for c in self.candidates], "evaluated": self.evaluated,
                     "feasible": self.feasible, "rejected": [m.to_json() for m in self.rejected], "excluded": [],
                     "best_by_kind": [k.to_json() for k in self.best_by_kind],
                     "near_misses": [m.near_json() for m in self.near_misses],
                     "unpriced": [u.to_json() for u in self.unpriced]}
        if any(p.require and p.require.percentiles for p in req.workloads):
            doc["checked"] = self.checked
        if not self.candidates:
            doc["nearest"] = [m.to_json() for m in self.nearest]
        return doc


def plan_machine(req: Requirements, top: int = 5, tail: TailOptions | None = None, explain: int = 8) -> MachinePlan:
    """The cheapest VM with a volume for each of ``req.workloads``."""
    vm_ids = space.vms(req)
    _caching_allowed(req)
    parts = _with_every_kind([_part(p, vm_ids) for p in req.workloads])
    clients = Clients.of(req.workloads[0], vm_ids, Streams.of(parts[0].wl).sizes)
    vm_limit = min(p.limits.max_utilization for p in parts)
    per = max(2, int(MAX_COMBINATIONS ** (1 / len(parts))))
    found_parts, failing, alone_fail, evaluated = _layouts(parts, clients, len(vm_ids), vm_limit, per)
    found = _Found(found_parts, len(parts))
    bounded = any(p.req.require and p.req.require.percentiles for p in parts)
    tail = (tail or TailOptions()) if bounded else None
    candidates: list[MachineCandidate] = []
    slow: list[Miss] = []
    checked = 0
    shown: set = set()
    for cost, _, v, rows in found:
        if len(candidates) >= top or (tail is not None and checked >= tail.top):
            break
        # as for one workload: a layout that differs from a better one only in a setting, or in
        # the count and size of a provisioned or size-scaled type, is not shown again
        variant = tuple(b.variant(r) for b, r in (p.batch(i) for p, i in zip(parts, rows)))
        if variant in shown:
            continue
        shown.add(variant)
        config = _config(parts, vm_ids[v], rows, req.clients)
        pred, figures = _predict(req, parts, config)
        if not _holds(parts, pred, figures, vm_limit):
            continue
        price = None if math.isnan(cost) else cost
        if tail is not None:
            checks = _tails(parts, pred, tail, checked)
            checked += 1
            figures = tuple(WorkloadFigures(f.name, f.iops, f.bandwidth, f.latency, checks.get(f.name))
                            for f in figures)
            short = [f for f in figures if f.tail is not None and not f.tail.meets]
            if short:
                slow.append(Miss(price, config, tuple(f"{f.name}: {text}" for f in short for text in f.tail.lacks()),
                                 (), max(f.tail.shortfall for f in short)))
                continue
        why = None
        if candidates and price is None:
            why = f"unpriced: no price in the catalog for {', '.join(dict.fromkeys(unpriced(req.catalog, config)))}"
        elif candidates and candidates[0].monthly_cost is not None:
            why = dearer(price - candidates[0].monthly_cost)
        candidates.append(MachineCandidate(len(candidates) + 1, price, config, pred, why, (),
                                           bill(req.catalog, config), None, figures))
    first = candidates[0].monthly_cost if candidates else None
    rejected = [m for m in slow if first is not None and m.monthly_cost is not None and m.monthly_cost <= first]
    misses = []
    for v, (cost, shortfall, grid) in failing.items():
        mask = np.ones(len(cost), dtype=bool) if first is None else np.nan_to_num(cost, nan=np.inf) < first
        if mask.any():
            c = np.nonzero(mask)[0][int(np.argmin(shortfall[mask]))]
            misses.append((float(shortfall[c]), float(cost[c]), v, tuple(int(x) for x in grid[:, c])))
    if first is not None:
        alone_fail = {v: f for v, f in alone_fail.items() if clients.price[v] < first}
    explained = _explain(req, parts, vm_ids, clients, misses, alone_fail, vm_limit)
    cheaper = [m for m in explained if first is not None and m.monthly_cost is not None and m.monthly_cost < first]
    rejected = (rejected + sorted(cheaper, key=lambda m: m.monthly_cost or 0.0))[:explain]
    closest = sorted(slow + explained, key=lambda m: (m.shortfall, math.inf if m.monthly_cost is None
                                                      else m.monthly_cost))
    nearest = tuple(closest[:explain]) if not candidates else ()
    if first is not None:  # near misses: cheaper than #1 (a simulated one: no dearer)
        simulated = {id(m) for m in slow}
        closest = [m for m in closest if m.monthly_cost is not None and
                   (m.monthly_cost < first or (id(m) in simulated and m.monthly_cost <= first))]
    kinds = (KindBest("disks", None, candidates[0]),) if candidates else ()
    return MachinePlan(req, tuple(p.wl for p in parts), tuple(candidates), evaluated, len(found), tuple(rejected),
                       nearest, checked, (), tuple(closest[:explain]), kinds,
                       tuple(_unpriced(req, parts, vm_ids, found, candidates, explain)))


def _caching_allowed(req: Requirements) -> None:
    """Raise :class:`~iolab.errors.SchemaError` (exit 2, naming ``workloads.NAME.caching``)
    for a workload that allows host caching only where no disk searched has it (Google Cloud
    and EBS volumes never do): nothing could be evaluated for it."""
    ids = space.skus(req)
    if any(req.catalog.disk(s).host_caching for s in ids):
        return
    for part in req.workloads:
        if "none" not in part.search.caching:
            raise SchemaError(f"{' or '.join(part.search.caching)} only, but no disk searched has host caching "
                              f"({', '.join(ids)}): add none", file=req.file, field=f"workloads.{part.name}.caching")


def _unpriced(req: Requirements, parts: list[_Part], vm_ids: list[str], found: "_Found",
              candidates: list[MachineCandidate], limit: int) -> list[Unpriced]:
    """Feasible layouts without a price, not among the candidates: the tightest fit (the
    busiest VM cap) of each VM, one for each set of missing prices, tightest first."""
    idx = np.nonzero(np.isnan(found.cost))[0]
    if not len(idx):
        return []
    order = idx[np.lexsort((idx, -found.busiest[idx]))]
    vm = found.vm[order]
    firsts = order[np.sort(np.unique(vm, return_index=True)[1])]
    shown = {c.config for c in candidates}
    out: list[Unpriced] = []
    told: set[tuple[str, ...]] = set()
    for i in firsts.tolist():
        if len(out) >= limit:
            break
        config = _config(parts, vm_ids[int(found.vm[i])], tuple(int(x) for x in found.grid[:, i]), req.clients)
        missing = tuple(dict.fromkeys(unpriced(req.catalog, config)))
        if config in shown or not missing or missing in told:
            continue
        told.add(missing)
        out.append(Unpriced(config, missing, tuple(price_entry(req.catalog, m) for m in missing),
                            1.0 - float(found.busiest[i])))
    return out


class _Found:
    """The feasible combinations, as columns, read in ranking order: priced before
    unpriced, then by cost, busiest VM cap, VM and the workloads' rows. Only the rows
    read are turned into Python values."""

    HEAD = 64
    """Reading in order sorts the cheapest this many (and every one tying with the last of
    them) first, and the rest only when the reader goes past them."""

    def __init__(self, parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]], workloads: int):
        if parts:
            self.cost = np.concatenate([p[0] for p in parts])
            self.busiest = np.concatenate([p[1] for p in parts])
            self.vm = np.concatenate([p[2] for p in parts])
            self.grid = np.concatenate([p[3] for p in parts], axis=1)
        else:
            self.cost = self.busiest = np.zeros(0)
            self.vm = np.zeros(0, dtype=int)
            self.grid = np.zeros((workloads, 0), dtype=int)

    def __len__(self) -> int:
        return len(self.cost)

    def _sort(self, pos: np.ndarray) -> np.ndarray:
        """Positions ``pos`` in ranking order. np.lexsort sorts by the last key first: the
        same order as sorting the tuples (unpriced, cost, busiest, vm, rows...)."""
        cost = self.cost[pos]
        unpriced = np.isnan(cost)
        return pos[np.lexsort((*self.grid[::-1, pos], self.vm[pos], self.busiest[pos],
                               np.where(unpriced, 0.0, cost), unpriced))]

    def __iter__(self):
        every = np.arange(len(self.cost))
        if len(every) > self.HEAD:
            key = np.where(np.isnan(self.cost), np.inf, self.cost)
            within = key <= np.partition(key, self.HEAD - 1)[self.HEAD - 1]
            yield from self._rows(self._sort(every[within]))
            every = every[~within]
        yield from self._rows(self._sort(every))

    def _rows(self, order: np.ndarray):
        for i in order.tolist():
            yield float(self.cost[i]), float(self.busiest[i]), int(self.vm[i]), tuple(int(x) for x in self.grid[:, i])


def _part(req: Requirements, vm_ids: list[str]) -> _Part:
    wl = Workload.of(req)
    cl, _, tiered = disk_batches(req, wl, vm_ids)
    tiered = [(t, b) for t, b in tiered if len(b)]
    batches = [b for _, b in tiered]
    limits = Limits.of(req)
    pos = {vm: i for i, vm in enumerate(vm_ids)}

    def cat(f) -> np.ndarray:
        return np.concatenate([f(b) for b in batches]) if batches else np.zeros(0)

    vm = cat(lambda b: np.array([pos.get(g, -1) for g in b.group.names], dtype=int)[b.group.index]).astype(int)
    latency = cat(lambda b: b.latency)
    path = {k: cat(lambda b, k=k: np.asarray(b.vm_path.get(k, np.zeros(len(b))), dtype=float)) for k in _VM_KINDS}
    load = {k: cat(lambda b, k=k: np.asarray(b.util.get(k, np.zeros(len(b))), dtype=float)) for k in _VM_KINDS}
    _by_tier(req, vm_ids, tiered, vm, path, load)
    base = latency.copy()
    for k in load:
        base = base - np.where(load[k] < 1, residence(path[k], load[k]), 0.0)
    return _Part(req, wl, limits, batches, np.repeat(np.arange(len(batches)), [len(b) for b in batches]).astype(int),
                 cat(lambda b: np.arange(len(b))).astype(int), vm,
                 cat(lambda b: b.cost) - (cl.price[vm] if len(vm) else 0.0), base, path, load,
                 cat(lambda b: b.count).astype(int), cat(lambda b: b.feasible(limits)).astype(bool),
                 cat(lambda b: b.ratio(limits)))


def _by_tier(req: Requirements, vm_ids: list[str], tiered: list[tuple[str | None, Batch]], vm: np.ndarray,
             path: dict[str, np.ndarray], load: dict[str, np.ndarray]) -> None:
    """Move the ``vm`` figures of rows whose VM caps their disk type by its own caps (a
    Compute Engine machine's ``disk_limits``: a batch of that type found them there) to that
    type's kind (:func:`tier_kind`), in place; the other rows keep them on the uncached caps."""
    tiers = list(dict.fromkeys(t for t, _ in tiered if t is not None))
    if not tiers:
        return
    code = np.concatenate([np.full(len(b), -1 if t is None else tiers.index(t)) for t, b in tiered])
    own = np.array([[req.catalog.vms[v].disk_caps(t) is not None for v in vm_ids] + [False] for t in tiers])
    row = np.where(code >= 0, own[np.maximum(code, 0), vm], False)  # vm -1 (not searched) reads the False column
    for i, t in enumerate(tiers):
        mine = row & (code == i)
        if not mine.any():  # no machine searched has caps of its own for the type (EBS, Hyperdisk)
            continue
        path[tier_kind(t)] = np.where(mine, path["vm"], 0.0)
        load[tier_kind(t)] = np.where(mine, load["vm"], 0.0)
    path["vm"] = np.where(row, 0.0, path["vm"])
    load["vm"] = np.where(row, 0.0, load["vm"])


def _with_every_kind(parts: list[_Part]) -> list[_Part]:
    """``parts``, each with every VM cap kind any of them has (zero where it has none)."""
    kinds = list(dict.fromkeys(k for p in parts for k in p.load))
    for p in parts:
        for k in kinds:
            p.path.setdefault(k, np.zeros(len(p.vm)))
            p.load.setdefault(k, np.zeros(len(p.vm)))
    return parts


def _layouts(parts: list[_Part], clients, vms: int, vm_limit: float, per: int):
    """Every VM's layouts, all VMs at once: for each workload the rows :func:`_kept` keeps on
    the VM, combined in every way (the workloads' rows in lexicographic order, as
    ``np.meshgrid(..., indexing="ij")`` lists them), each combination checked together.

    Returns the feasible combinations as (cost, busiest, vm, grid) pieces, the failing ones
    by VM (cost, shortfall, grid; VMs in ascending order), the VMs where a workload fails
    alone (VM → [(workload, its closest row)], ascending) and how many were evaluated. The
    columns are made a bounded number at a time (:data:`_CHUNK`)."""
    kept, alone = [], []
    for w, p in enumerate(parts):
        mine = np.nonzero((p.vm >= 0) & (p.vm < vms))[0]
        good = mine[p.ok[mine]]
        kept.append(_kept(p, good, per))
        has_rows = np.bincount(p.vm[mine], minlength=vms) > 0
        has_good = np.bincount(p.vm[good], minlength=vms) > 0
        for v, row in _closest(p, mine[~has_good[p.vm[mine]]]):
            if has_rows[v]:
                alone.append((v, w, row))
    alone_fail: dict[int, list[tuple[int, int]]] = {}
    for v, w, row in sorted(alone):
        alone_fail.setdefault(v, []).append((w, row))
    counts = np.array([np.bincount(parts[w].vm[k], minlength=vms) for w, k in enumerate(kept)])  # (W, V)
    combos = np.prod(counts, axis=0)
    chosen = np.nonzero(combos > 0)[0]
    found: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    failing: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    evaluated = 0
    while len(chosen):
        take = max(1, int(np.searchsorted(np.cumsum(combos[chosen]), _CHUNK, side="right")))
        chunk, chosen = chosen[:take], chosen[take:]
        grid, vm = _product(parts, kept, counts, chunk, vms)
        evaluated += grid.shape[1]
        ok, busiest, shortfall, _ = _combined(parts, grid, vm_limit, clients.max_disks[vm].astype(int))
        cost = clients.price[vm] + sum(p.disk_cost[grid[w]] for w, p in enumerate(parts))
        if ok.any():
            found.append((cost[ok], busiest[ok], vm[ok], grid[:, ok]))
        bad = np.nonzero(~ok)[0]
        if len(bad):
            at = vm[bad]  # ascending: a chunk's combinations come VM by VM (see _product)
            starts = np.flatnonzero(at[1:] != at[:-1]) + 1
            for v, piece in zip(at[np.concatenate(([0], starts))].tolist(), np.split(bad, starts)):
                failing[v] = (cost[piece], shortfall[piece], grid[:, piece])
    return found, failing, alone_fail, evaluated


_CHUNK = 1 << 18
"""Combinations checked at a time by :func:`_layouts` (at least one VM's): bounds memory."""


def _product(parts: list[_Part], kept: list[np.ndarray], counts: np.ndarray, chunk: np.ndarray, vms: int):
    """The combinations of the VMs in ``chunk`` (ascending): each workload's kept rows on the
    same VM, joined one workload at a time; returns the grid (W, C) and each column's VM."""
    inside = np.zeros(vms, dtype=bool)
    inside[chunk] = True
    lists = [k[inside[parts[w].vm[k]]] for w, k in enumerate(kept)]   # sorted by VM, in kept order
    columns = [lists[0]]
    vm = parts[0].vm[lists[0]]
    for w in range(1, len(parts)):
        start = np.concatenate(([0], np.cumsum(counts[w][chunk])))      # where each VM's rows begin in lists[w]
        first = np.zeros(vms, dtype=np.int64)
        first[chunk] = start[:-1]
        reps = counts[w][vm]
        columns = [np.repeat(c, reps) for c in columns]
        offset = np.arange(int(reps.sum())) - np.repeat(np.cumsum(reps) - reps, reps)
        columns.append(lists[w][np.repeat(first[vm], reps) + offset])
        vm = np.repeat(vm, reps)
    return np.array(columns, dtype=int).reshape(len(parts), -1), vm.astype(int)


def _kept(p: _Part, rows: np.ndarray, most: int) -> np.ndarray:
    """Of ``rows`` (feasible alone, on any VMs): on each VM, for each VM-cap load and disk
    count, those no cheaper row beats on latency; then at most ``most`` per VM, cheapest
    first. Sorted by VM, then cheapest first.

    Read in order (VM, cost, then latency), a row is kept when its latency is below that of
    every earlier row of its VM with the same key (:attr:`_Part.key`): the rows that set a new
    low within their VM and key, found for all rows at once."""
    cost = np.where(np.isnan(p.disk_cost[rows]), np.inf, p.disk_cost[rows])
    order = rows[np.lexsort((p.base[rows], cost, p.vm[rows]))]
    if not len(order):
        return order.astype(int)
    group = p.vm[order].astype(np.int64) * (int(p.key.max()) + 1) + p.key[order]
    rank = p.base_rank[order]
    n = len(order)
    by = np.lexsort((np.arange(n), group))                 # by VM and key, then in reading order
    # each group's ranks shifted below every earlier group's: one running minimum restarts at each
    shifted = rank[by].astype(np.int64) - group[by] * (len(p.base) + 1)
    before = np.concatenate(([np.iinfo(np.int64).max], np.minimum.accumulate(shifted)[:-1]))
    new_low = np.zeros(n, dtype=bool)
    new_low[by] = shifted < before
    new_low &= p.base[order] < math.inf                    # an unbounded latency is never a new low
    found = order[np.nonzero(new_low)[0]]
    vm = p.vm[found]
    place = np.arange(len(found)) - np.searchsorted(vm, vm)   # position within its VM
    return found[place < most].astype(int)


def _rounded(values: np.ndarray, digits: int) -> np.ndarray:
    """``round(x, digits)`` of each value, as Python rounds (each distinct value once)."""
    distinct, back = np.unique(values, return_inverse=True)
    return np.array([round(x, digits) for x in distinct.tolist()], dtype=float)[back.ravel()]


def _combined(parts: list[_Part], grid: np.ndarray, vm_limit: float, max_disks: int):
    """Feasibility of each combination (columns of ``grid``), its busiest VM cap, its
    shortfall (the worst ratio of a figure to its limit) and each workload's latency."""
    u = {k: sum(p.load[k][grid[w]] for w, p in enumerate(parts)) for k in parts[0].load}
    waits = {k: stretch(load) for k, load in u.items()}  # each cap's stretch, once for every workload
    latencies = []
    for w, p in enumerate(parts):
        rows = grid[w]
        lat = p.base[rows]
        for k in u:
            lat = lat + stretched(p.path[k][rows], waits[k])
        latencies.append(lat)
    disks = sum(p.count[grid[w]] for w, p in enumerate(parts))
    busiest = np.maximum.reduce(list(u.values()))
    shortfall = np.maximum(busiest / vm_limit, disks / max_disks)
    for p, lat in zip(parts, latencies):
        if p.limits.latency is not None:
            shortfall = np.maximum(shortfall, lat / p.limits.latency)
    ok = shortfall <= 1 + TOLERANCE
    return ok, busiest, shortfall, latencies


def _closest(p: _Part, rows: np.ndarray) -> list[tuple[int, int]]:
    """Of ``rows`` (failing alone), on each VM the one that came closest to passing (the
    smallest ratio), the cheaper on ties, the first on further ties: (VM, row) pairs."""
    cost = np.where(np.isnan(p.disk_cost[rows]), np.inf, p.disk_cost[rows])
    order = rows[np.lexsort((cost, p.ratio[rows], p.vm[rows]))]
    vm, first = np.unique(p.vm[order], return_index=True)
    return [(int(v), int(r)) for v, r in zip(vm, order[first])]


def _config(parts: list[_Part], vm: str, rows: tuple[int, ...], clients: int) -> Config:
    volumes = []
    for p, i in zip(parts, rows):
        b, r = p.batch(i)
        volumes.append((p.req.name or "", b.config(r).disks))
    return Config(vm, clients, volumes=tuple(volumes))


def _rates(parts: list[_Part], clients: int):
    """Ops/s per network job: each workload's rate split over its jobs and clients."""
    by_group = {}
    for p in parts:
        by_group.update(p.wl.job_rates(clients))

    def rates(network: Network) -> dict[str, float]:
        return {j.name: by_group[j.group] for j in network.jobs}

    return rates


def _predict(req: Requirements, parts: list[_Part], config: Config) -> tuple[LoadPrediction, tuple[WorkloadFigures, ...]]:
    rates = _rates(parts, req.clients)
    pred = predict_at_load(req, parts[0].wl, config, rates, sum(p.wl.bandwidth for p in parts))
    per_job = rates(pred.network)
    figures = []
    for p in parts:
        names = {j.name for j in p.req.jobs}
        jobs = [j.name for j in pred.network.jobs if j.group in names]
        total = sum(per_job[j] for j in jobs)
        lat = sum(per_job[j] * pred.solution.jobs.get(j, math.inf) for j in jobs) / total
        figures.append(WorkloadFigures(p.req.name or "", p.wl.rate, p.wl.bandwidth, lat))
    return pred, tuple(figures)


def _holds(parts: list[_Part], pred: LoadPrediction, figures: tuple[WorkloadFigures, ...], vm_limit: float) -> bool:
    """The compiled network agrees: every resource within its workload's margin (the VM's
    within the strictest), every workload's mean latency within its bound."""
    margin = {p.req.name: p.limits.max_utilization for p in parts}
    for r in pred.loads:
        owner = r.label.split(":")[0]
        if r.utilization > margin.get(owner, vm_limit) * (1 + TOLERANCE):
            return False
    return all(p.limits.latency is None or f.latency <= p.limits.latency * (1 + TOLERANCE)
               for p, f in zip(parts, figures))


def _tails(parts: list[_Part], pred: LoadPrediction, tail: TailOptions, done: int) -> dict[str, TailCheck]:
    bounds = {p.req.name: dict(p.req.require.percentiles) for p in parts if p.req.require and p.req.require.percentiles}
    every = {k: v for b in bounds.values() for k, v in b.items()}
    sim = simulate_open(pred.network, _rates(parts, pred.config.clients)(pred.network), tail,
                        tail.ios or ios_for(every), done)
    out = {}
    for p in parts:
        if p.req.name in bounds:
            names = tuple(j.name for j in p.req.jobs)
            out[p.req.name or ""] = tail_of(sim, bounds[p.req.name], names)
    return out


def _explain(req: Requirements, parts: list[_Part], vm_ids: list[str], clients: Clients,
             misses: list, alone_fail: dict[int, list[tuple[int, int]]], vm_limit: float) -> list[Miss]:
    """Why each VM that has no feasible layout fails: a workload that fails alone there
    (its own lacks; the shortfall: the worst of theirs), or the best combination's shared
    limits (its shortfall)."""
    out: list[Miss] = []
    for v, fails in alone_fail.items():
        text = []
        for w, i in fails:
            p = parts[w]
            b, r = p.batch(i)
            facts = {t for kind, t in b.facts(r) if kind in failing_kinds(p.req, b, r)}
            text.append(f"{p.req.name}: {'; '.join(lacks(p.req, p.wl, b, r))}"
                        + (f" ({'; '.join(sorted(facts))})" if facts else ""))
        cost = clients.price[v]
        shortfall = max(float(parts[w].ratio[i]) for w, i in fails)
        out.append(Miss(None if math.isnan(cost) else float(cost), Config(vm_ids[v], req.clients), tuple(text), (),
                        shortfall))
    for shortfall, cost, v, rows in sorted(misses, key=lambda m: m[0]):
        grid = np.array(rows)[:, None]
        _, _, _, latencies = _combined(parts, grid, vm_limit, int(clients.max_disks[v]))
        text = []
        for k in parts[0].load:
            loads = [float(p.load[k][i]) for p, i in zip(parts, rows)]
            if sum(loads) > vm_limit * (1 + TOLERANCE):
                split = ", ".join(f"{p.req.name} {u:.0%}" for p, u in zip(parts, loads) if u > 0)
                busy, most = over_margin(sum(loads), vm_limit)
                text.append(f"{kind_words(k, req.catalog.cloud)} would be {busy} busy ({split}), over the {most} allowed")
        disks = sum(int(p.count[i]) for p, i in zip(parts, rows))
        if disks > clients.max_disks[v]:
            text.append(f"the volumes need {disks} data disks; {vm_ids[v]} takes at most {clients.max_disks[v]}")
        for p, lat in zip(parts, latencies):
            if p.limits.latency is not None and lat[0] > p.limits.latency * (1 + TOLERANCE):
                shown = format_duration(float(lat[0])) if math.isfinite(lat[0]) else "unbounded"
                text.append(f"{p.req.name}: mean latency {shown} over the required {format_duration(p.limits.latency)}")
        out.append(Miss(None if math.isnan(cost) else cost, _config(parts, vm_ids[v], rows, req.clients),
                        tuple(text or ["fails"]), (), shortfall))
    return out


def describe_need(part: Requirements, wl: Workload) -> str:
    """``data: randrw 70/30 8 KiB, 12,000 IOPS (98.3 MB/s), mean ≤ 5 ms, cache none or readonly``."""
    need = part.require
    assert need is not None
    bits = [f"{format_ops(wl.rate)} ({format_rate(wl.bandwidth)})"]
    if need.latency is not None:
        bits.append(f"mean ≤ {format_duration(need.latency)}")
    bits += [f"{k} ≤ {format_duration(v)}" for k, v in need.percentiles.items()]
    bits.append("caching " + " or ".join(part.search.caching))
    return f"{part.name}: {wl.describe()}, " + ", ".join(bits)
