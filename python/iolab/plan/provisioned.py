"""Premium SSD v2 and Ultra: for every VM size × count, the cheapest provisioned IOPS and
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

import numpy as np

from ..catalog import ProvisionedDisk
from ..units import GiB
from .config import Config, DiskChoice
from .cost import MBPS, provisioned_price
from .disks import IO_UNIT, Clients, Streams, disk_facts, eligible, open_latency, stripe_tables
from .requirements import Requirements
from .table import TOLERANCE, Batch, Limits
from .workload import Workload

__all__ = ["search_provisioned"]

_ROUNDS = 40


def search_provisioned(req: Requirements, wl: Workload, clients: Clients, st: Streams,
                       skus: list[ProvisionedDisk]) -> list[Batch]:
    """One batch per provisioned SKU with every eligible VM × count (host caching: none)."""
    out: list[Batch] = []
    if "none" not in req.search.caching:
        return out  # neither Premium SSD v2 nor Ultra has host caching
    for sku in skus:
        ok = eligible(clients, sku, "none")
        vs = np.nonzero(ok)[0]
        if not len(vs):
            continue
        counts = clients.max_disks[vs]
        rows_v = np.repeat(vs, counts)
        rows_n = np.concatenate([np.arange(1, c + 1) for c in counts])
        out.append(_Solver(req, wl, clients, st, sku, rows_v, rows_n).batch())
    return out


class _Solver:
    def __init__(self, req: Requirements, wl: Workload, cl: Clients, st: Streams, sku: ProvisionedDisk,
                 rows_v: np.ndarray, rows_n: np.ndarray):
        self.req, self.wl, self.cl, self.st, self.sku = req, wl, cl, st, sku
        self.v, self.n = rows_v, rows_n
        members, part = stripe_tables(st.sizes, req.search.stripe_size, int(rows_n.max()))
        self.m = members[rows_n - 1][:, st.size_index]                  # (rows, streams)
        self.part = part[rows_n - 1][:, st.size_index].astype(float)
        unit = sku.io_unit or IO_UNIT
        self.ops = np.maximum(1.0, np.ceil(self.part / unit))
        self.d_u = cl.d_uncached[rows_v][:, st.size_index]
        self.lat = np.where(st.read, sku.read_latency, sku.write_latency)
        lam, q, nn = wl.per_client, st.share, rows_n[:, None].astype(float)
        self.i1 = lam * (q * self.m / nn * self.ops).sum(axis=1)       # ops/s per member at the load
        self.b1 = lam * (q * self.m / nn * self.part).sum(axis=1)      # bytes/s per member
        cap = (req.require.capacity or 0) / req.clients if req.require else 0
        self.cap_per_disk = cap / rows_n
        self.floor_i = sku.baseline_iops if sku.baseline_iops is not None else sku.min_iops
        self.floor_b = sku.baseline_bandwidth if sku.baseline_bandwidth is not None else sku.min_bandwidth

    def provision(self, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        b = np.maximum(s * self.b1, self.floor_b)
        i = np.maximum(np.maximum(s * self.i1, self.floor_i), b / self.sku.bandwidth_per_iops)
        return i, b

    def size(self, i: np.ndarray) -> np.ndarray:
        sku = self.sku
        for_iops = np.where((sku.baseline_iops is not None) & (i <= (sku.baseline_iops or 0)), 0.0,
                            np.ceil(i / sku.iops_per_gib) * GiB)
        need = np.maximum(np.maximum(for_iops, self.cap_per_disk), sku.min_size)
        return np.ceil(need / sku.size_step) * sku.size_step

    def evaluate(self, i: np.ndarray, b: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray]:
        q, nn = self.st.share, self.n[:, None].astype(float)
        d = np.maximum(self.ops / i[:, None], self.part / b[:, None])  # per member visit
        on_path = {"vm": (q * self.d_u).sum(axis=1), "disk": (q * self.m / nn * d).sum(axis=1)}
        response = {"disk": (q / nn * d).sum(axis=1)}  # a striped IO's members run in parallel
        z = (q * np.maximum(0.0, self.lat - self.d_u - d)).sum(axis=1)
        util, latency = open_latency(self.wl.per_client, on_path, {}, {"disk": self.n}, z, response)
        sku = self.sku
        # Beyond the SKU's maxima (or a size over its maximum) the row cannot be built.
        over = np.maximum(i / sku.max_iops, b / sku.max_bandwidth)
        util["disk"] = np.where(over > 1 + TOLERANCE, np.maximum(util["disk"], over), util["disk"])
        util["capacity"] = self.cap_per_disk / sku.max_size
        return util, latency

    def ok(self, s: np.ndarray, disks_only: bool = False) -> np.ndarray:
        """Rows feasible at scale ``s``; with ``disks_only``, as far as the disks go (for the
        rows that fail elsewhere, so that their attempt is provisioned for the load, not maxed)."""
        i, b = self.provision(s)
        util, latency = self.evaluate(i, b)
        good = Limits.of(self.req).ok(util, latency, ("disk", "capacity") if disks_only else None)
        return good & (self.size(i) <= self.sku.max_size)

    def smallest(self, lo: np.ndarray, hi: np.ndarray, disks_only: bool) -> np.ndarray:
        """Bisection for the smallest scale in [lo, hi] that is ok (hi where none is)."""
        lo, hi = lo.copy(), hi.copy()
        for _ in range(_ROUNDS):
            mid = (lo + hi) / 2
            good = self.ok(mid, disks_only)
            hi = np.where(good, mid, hi)
            lo = np.where(good, lo, mid)
        return hi

    def batch(self) -> Batch:
        sku = self.sku
        most = np.minimum(sku.max_iops / np.maximum(self.i1, self.b1 / sku.bandwidth_per_iops),
                          sku.max_bandwidth / self.b1)
        zero = np.zeros(len(self.n))
        full = self.smallest(zero, most, disks_only=False)
        partial = self.smallest(zero, most, disks_only=True)
        s = np.where(self.ok(most), full, partial)
        s = np.where(self.ok(zero), 0.0, s)
        i, b = self.provision(s)
        b = np.minimum(np.ceil(b / MBPS - 1e-9) * MBPS, sku.max_bandwidth)
        i = np.minimum(np.ceil(np.maximum(i, b / sku.bandwidth_per_iops) - 1e-9), sku.max_iops)
        size = np.minimum(self.size(i), sku.max_size)
        util, latency = self.evaluate(i, b)
        cl, req = self.cl, self.req
        per_disk = [provisioned_price(sku, int(z), float(x), float(y)) for z, x, y in zip(size, i, b)]
        disks = np.array([np.nan if p is None else p for p in per_disk]) * self.n * req.clients
        cost = cl.price[self.v] + disks
        rows_v, rows_n = self.v, self.n

        def config(k: int) -> Config:
            choice = DiskChoice(sku.id, int(rows_n[k]), "none", int(size[k]), float(i[k]), float(b[k]))
            return Config(cl.ids[rows_v[k]], req.clients, (choice,))

        def facts(k: int) -> list[str]:
            out = disk_facts(req, cl, int(rows_v[k]), int(rows_n[k]), sku)
            if i[k] >= sku.max_iops or b[k] >= sku.max_bandwidth:
                out.append(("disk", f"one {sku.id} disk takes at most {sku.max_iops:,.0f} IOPS and "
                                    f"{sku.max_bandwidth / MBPS:,.0f} MB/s"))
            return out

        def variant(k: int) -> tuple:
            return (cl.ids[rows_v[k]], sku.id, int(rows_n[k]), int(size[k]), float(i[k]), float(b[k]))

        path = {"vm": (self.st.share * self.d_u).sum(axis=1)}
        return Batch(f"{sku.id}", cost, latency, util, [cl.ids[v] for v in rows_v], config, facts, variant, path,
                     rows_n)
