"""Premium SSD v2 and Ultra (and Google Cloud's Hyperdisk, and Persistent Disk, whose IOPS and
throughput come with its size): for every VM size × count, the cheapest provisioned IOPS and
throughput (and the size they need) that meet the requirement, solved rather than enumerated.

At the required load each of ``n`` striped disks must carry ``I₁`` ops/s and ``B₁`` bytes/s
(the per-member share of the stream, IOs counted in 256 KiB units). Provisioning
``s × (I₁, B₁)`` scales the disks' demand by ``1 / s``; utilization and latency fall as
``s`` grows, so the smallest ``s`` that meets every requirement is found by bisection (all
rows at once). The values are then floored by what is free or required (Premium SSD v2's
3,000 IOPS and 125 MB/s; the minimums), throughput needs IOPS (``bandwidth_per_iops``),
and the size is the larger of the capacity's share and what the IOPS need
(``iops_per_gib``). A row whose need exceeds the disk's maxima is infeasible, reported at
the most the disk can be provisioned with.
"""

from __future__ import annotations

import copy

import numpy as np

from ..catalog import ProvisionedDisk
from ..units import GiB
from .config import Config, DiskChoice
from .cost import MBPS, provisioned_prices
from .disks import IO_UNIT, Clients, Rows, Streams, by_class, counted_ops, disk_facts, stack_rows, stripe_tables, striped_open
from .requirements import Requirements
from .table import TOLERANCE, Batch, Labels, Limits
from .workload import Workload

__all__ = ["search_provisioned"]

_ROUNDS = 40


def search_provisioned(req: Requirements, wl: Workload, clients: Clients, st: Streams,
                       skus: list[ProvisionedDisk]) -> list[Batch]:
    """Every provisioned SKU × eligible VM × count (host caching: none) in one batch, solved
    at once (SKU by SKU, then VM by VM, then count by count)."""
    if "none" not in req.search.caching:
        return []  # neither Premium SSD v2 nor Ultra has host caching
    rows = stack_rows(clients, skus, ["none"])
    if not len(rows.v):
        return []
    # Solved once per SKU × class of alike VM sizes × count, then copied to every VM's rows.
    classes, few, at = by_class(clients, skus, ["none"], rows)
    return [_Solver(req, wl, classes, st, skus, few).batch(clients, rows, at)]


def _column(skus: list[ProvisionedDisk], rows_s: np.ndarray, get, none: float = np.nan) -> np.ndarray:
    """One figure of each row's SKU (``none`` where the catalog has no value)."""
    return np.array([none if (x := get(sku)) is None else x for sku in skus], dtype=float)[rows_s]


class _Solver:
    def __init__(self, req: Requirements, wl: Workload, cl: Clients, st: Streams, skus: list[ProvisionedDisk],
                 rows: Rows):
        self.req, self.wl, self.cl, self.st, self.skus = req, wl, cl, st, skus
        self.rows = rows
        rows_v, rows_n, rows_s = rows.v, rows.n, rows.s
        self.v, self.n = rows_v, rows_n
        members, part = stripe_tables(st.sizes, req.search.stripe_size, int(rows_n.max()))
        self.m = members[rows_n - 1][:, st.size_index]                  # (rows, streams)
        self.part = part[rows_n - 1][:, st.size_index].astype(float)
        unit = _column(skus, rows_s, lambda k: k.io_unit or IO_UNIT)[:, None]
        self.ops = counted_ops(req, st, self.part, unit, [skus[k].tier for k in rows_s.tolist()])
        self.d_u = cl.d_uncached[rows_v][:, st.size_index]
        self.lat = np.where(st.read, _column(skus, rows_s, lambda k: k.read_latency)[:, None],
                            _column(skus, rows_s, lambda k: k.write_latency)[:, None])
        lam, q, nn = wl.per_client, st.share, rows_n[:, None].astype(float)
        self.i1 = lam * (q * self.m / nn * self.ops).sum(axis=1)       # ops/s per member at the load
        self.b1 = lam * (q * self.m / nn * self.part).sum(axis=1)      # bytes/s per member
        cap = (req.require.capacity or 0) / req.clients if req.require else 0
        self.cap_per_disk = cap / rows_n
        col = lambda get, none=np.nan: _column(skus, rows_s, get, none)  # noqa: E731
        # A Persistent Disk's baseline is per VM, shared by its disks: the plan counts none of it
        # (its disks get their figures from their size alone, which the VM's share only raises).
        free = lambda k: k.baseline_iops is not None and not k.by_size  # noqa: E731
        self.floor_i = col(lambda k: k.baseline_iops if free(k) else k.min_iops)
        self.floor_b = col(lambda k: k.baseline_bandwidth if free(k) else k.min_bandwidth)
        self.per_iops = col(lambda k: k.bandwidth_per_iops)
        self.has_base = col(lambda k: 1.0 if free(k) else 0.0) > 0
        self.base_i = col(lambda k: k.baseline_iops if free(k) else 0.0)
        self.base_b = col(lambda k: k.baseline_bandwidth if free(k) else 0.0)
        self.iops_per_gib = col(lambda k: k.iops_per_gib)
        self.min_size = col(lambda k: k.min_size)
        self.size_step = col(lambda k: k.size_step)
        self.max_size = col(lambda k: k.max_size)
        self.max_iops = col(lambda k: k.max_iops)
        self.max_bandwidth = col(lambda k: k.max_bandwidth)
        self.fixed_b = col(lambda k: 0.0 if k.bandwidth_provisioned else 1.0) > 0  # io1/io2: from the IOPS
        self.knee_b = col(lambda k: k.knee.bandwidth if k.knee else None, np.inf)  # io1/io2 above 32,000 IOPS
        self.knee_per = col(lambda k: k.knee.per_iops if k.knee else None, 1.0)
        self.limits = Limits.of(req)
        # The response path's VM figures do not depend on what the disks are provisioned with.
        self.vm_path = (q * self.d_u).sum(axis=1)

    _PER_ROW = ("v", "n", "m", "part", "ops", "d_u", "lat", "i1", "b1", "cap_per_disk", "floor_i", "floor_b",
                "per_iops", "has_base", "base_i", "base_b", "iops_per_gib", "min_size", "size_step", "max_size",
                "max_iops", "max_bandwidth", "fixed_b", "knee_b", "knee_per", "vm_path")

    def take(self, which: np.ndarray) -> "_Solver":
        """The same solver over the rows ``which`` only (every figure is row by row)."""
        other = copy.copy(self)
        for name in self._PER_ROW:
            setattr(other, name, getattr(self, name)[which])
        return other

    def provision(self, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        b = np.maximum(s * self.b1, self.floor_b)
        i = np.maximum(np.maximum(s * self.i1, self.floor_i), self.iops_for(b))
        return i, self.follow(i, b)

    def iops_for(self, b: np.ndarray) -> np.ndarray:
        """The fewest IOPS that allow ``b`` bytes/s (:meth:`ProvisionedDisk.iops_for`, row by row)."""
        return np.where(b > self.knee_b, b / self.knee_per, b / self.per_iops)

    def most_bandwidth(self, i: np.ndarray) -> np.ndarray:
        """The most bytes/s ``i`` IOPS allow (:meth:`ProvisionedDisk.most_bandwidth`, row by row)."""
        most = np.minimum(self.per_iops * i, self.max_bandwidth)
        return np.minimum(most, np.maximum(self.knee_b, self.knee_per * i))

    def follow(self, i: np.ndarray, b: np.ndarray) -> np.ndarray:
        """The throughput of rows whose throughput follows from their IOPS (io1, io2): the
        most those IOPS give; others keep ``b``."""
        return np.where(self.fixed_b, self.most_bandwidth(i), b)

    def size(self, i: np.ndarray) -> np.ndarray:
        for_iops = np.where(self.has_base & (i <= self.base_i), 0.0, np.ceil(i / self.iops_per_gib) * GiB)
        need = np.maximum(np.maximum(for_iops, self.cap_per_disk), self.min_size)
        return np.ceil(need / self.size_step) * self.size_step

    def evaluate(self, i: np.ndarray, b: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray]:
        util, latency = striped_open(self.wl.per_client, self.st.share, self.m, self.part, self.ops, self.d_u,
                                     self.lat, self.n, self.vm_path, i, b)
        # Beyond the SKU's maxima (or a size over its maximum) the row cannot be built.
        over = np.maximum(i / self.max_iops, b / self.max_bandwidth)
        util["disk"] = np.where(over > 1 + TOLERANCE, np.maximum(util["disk"], over), util["disk"])
        util["capacity"] = self.cap_per_disk / self.max_size
        return util, latency

    def ok(self, s: np.ndarray, disks_only: np.ndarray | bool = False) -> np.ndarray:
        """Rows feasible at scale ``s``; where ``disks_only``, as far as the disks go (for the
        rows that fail elsewhere, so that their attempt is provisioned for the load, not maxed)."""
        i, b = self.provision(s)
        util, latency = self.evaluate(i, b)
        good = self.limits.ok(util, latency)
        if np.any(disks_only):
            good = np.where(disks_only, self.limits.ok(util, latency, ("disk", "capacity")), good)
        return good & (self.size(i) <= self.max_size)

    def smallest(self, lo: np.ndarray, hi: np.ndarray, disks_only: np.ndarray) -> np.ndarray:
        """Bisection for the smallest scale in [lo, hi] that is ok (hi where none is), every row at once."""
        lo, hi = lo.copy(), hi.copy()
        for _ in range(_ROUNDS):
            mid = (lo + hi) / 2
            good = self.ok(mid, disks_only)
            hi = np.where(good, mid, hi)
            lo = np.where(good, lo, mid)
        return hi

    def _solve(self, rows: np.ndarray, most: np.ndarray) -> np.ndarray:
        """The smallest scale of each of ``rows``, each distinct problem solved once: a row
        that fails beyond its disks is solved as far as its disks go, which depends only on
        its SKU and count; one feasible at its most also on its VM's demands (rows of VM
        sizes with the same caps share them). The same arithmetic row by row, so the same
        figures as solving every row."""
        part = self.take(rows)
        top = most[rows]
        disks_only = ~part.ok(top)
        vm = np.where(disks_only[:, None], 0.0, part.d_u)
        key = np.column_stack([self.rows.s[rows], part.n, disks_only, vm]).astype(float)
        _, first, back = np.unique(key, axis=0, return_index=True, return_inverse=True)
        unique = part.take(first)
        return unique.smallest(np.zeros(len(first)), top[first], disks_only[first])[back.ravel()]

    def batch(self, cl: Clients, rows: Rows, at: np.ndarray) -> Batch:
        """The batch of ``rows`` (VM sizes of ``cl``), row ``k`` taking the figures of this
        solver's row ``at[k]`` (its SKU, class of alike VM sizes and count)."""
        skus = self.skus
        most = np.minimum(self.max_iops / np.maximum(self.i1, self.b1 / self.per_iops),
                          self.max_bandwidth / self.b1)
        zero = np.zeros(len(self.n))
        # A row that is feasible at its most is provisioned for everything; one that is not,
        # as far as its disks go. Rows feasible with the least provisioning need no search.
        s = zero.copy()
        search = np.nonzero(~self.ok(zero))[0]
        if len(search):
            s[search] = self._solve(search, most)
        i, b = self.provision(s)
        # whole MB/s, except the free baseline kept as it is (gp3's 125 MiB/s is 131.07 MB/s)
        b = np.where(b <= self.floor_b * (1 + 1e-9), b, np.minimum(np.ceil(b / MBPS - 1e-9) * MBPS, self.max_bandwidth))
        i = np.minimum(np.ceil(np.maximum(i, self.iops_for(b)) - 1e-9), self.max_iops)
        b = self.follow(i, b)
        size = np.minimum(self.size(i), self.max_size)
        util, latency = self.evaluate(i, b)
        req = self.req
        disks = provisioned_prices(skus, self.rows.s, size, i, b) * self.n * req.clients
        util, latency, vm_path = {k: u[at] for k, u in util.items()}, latency[at], self.vm_path[at]
        size, i, b = size[at], i[at], b[at]
        rows_v, rows_n, rows_s = rows.v, rows.n, rows.s
        cost = cl.price[rows_v] + disks[at]

        def config(k: int) -> Config:
            choice = DiskChoice(skus[rows_s[k]].id, int(rows_n[k]), "none", int(size[k]), float(i[k]), float(b[k]))
            return Config(cl.ids[rows_v[k]], req.clients, (choice,))

        def facts(k: int) -> list[tuple[str, str]]:
            sku = skus[rows_s[k]]
            out = disk_facts(req, cl, int(rows_v[k]), int(rows_n[k]), sku)
            if i[k] >= sku.max_iops or b[k] >= sku.max_bandwidth:
                out.append(("disk", f"one {sku.id} disk takes at most {sku.max_iops:,.0f} IOPS and "
                                    f"{sku.max_bandwidth / MBPS:,.0f} MB/s"))
            return out

        def variant(k: int) -> tuple:
            # another count, size or provisioning of the same disk type on the same VM: splitting a
            # volume's capacity and baseline costs (nearly) nothing, so only the best is shown
            return (cl.ids[rows_v[k]], skus[rows_s[k]].id)

        families = Labels([sku.id for sku in skus], rows.f)
        return Batch("provisioned disks", cost, latency, util, Labels(cl.ids, rows_v), config, facts, variant,
                     {"vm": vm_path}, rows_n, families)
