"""EBS volumes whose caps follow from their size (gp2, st1, sc1): for every instance type ×
count, the smallest volume size that meets the requirement, solved rather than enumerated.

A volume's sustained caps (:meth:`iolab.catalog.ScaledDisk.sustained`: gp2's 3 IOPS per GiB,
st1's 40 MiB/s and sc1's 12 MiB/s per TiB, up to their maxima) grow with its size and its
price is per GiB, so the cheapest size is the smallest that keeps every resource within
``max_utilization`` and the mean latency within its bound: found by bisection over whole
GiB, all rows at once, between the larger of the minimum size and the capacity's share and
the maximum size. Only the baseline counts: a credit bucket (gp2's I/O credits, st1/sc1's
throughput credits) runs dry under a sustained load, as an instance's 30-minute EBS burst
does, so the plan never counts on a burst.

IO accounting as the compiler's (:mod:`iolab.compile.disks`): an IO counts as one up to the
volume's ``io_unit`` (256 KiB SSD, 1 MiB HDD) and larger ones split; physically sequential
smaller IOs of a sequential job merge up to it, so each carries ``part / io_unit`` of a
counted IO. A random 8 KiB IO costs an st1 volume one of its 500 IOPS; a sequential one
costs 1/128 of one. That is why the HDD volumes win only large sequential workloads.
"""

from __future__ import annotations

import numpy as np

from ..catalog import ScaledDisk
from ..units import GiB
from .config import Config, DiskChoice
from .disks import Clients, Streams, by_class, counted_ops, disk_facts, stack_rows, stripe_tables, striped_open
from .requirements import Requirements
from .table import Batch, Labels, Limits
from .workload import Workload

__all__ = ["search_scaled"]


def search_scaled(req: Requirements, wl: Workload, clients: Clients, st: Streams,
                  skus: list[ScaledDisk]) -> list[Batch]:
    """Every size-scaled volume type × eligible instance type × count (no host caching on
    EBS) in one batch: each row at the smallest size that meets the requirement (the
    maximum size where none does)."""
    if not skus or "none" not in req.search.caching:
        return []
    rows = stack_rows(clients, skus, ["none"])
    if not len(rows.v):
        return []
    classes, few, at = by_class(clients, skus, ["none"], rows)
    model = _Model(req, wl, classes, st, skus, few.s, few.v, few.n)
    size = model.smallest()
    util, latency = model.evaluate(size)
    iops, bandwidth = model.caps(size)
    price = np.array([np.nan if k.price_per_gib_month is None else k.price_per_gib_month for k in skus])
    disks = price[few.s] * (size / GiB) * few.n * req.clients
    util, latency = {k: u[at] for k, u in util.items()}, latency[at]
    size, iops, bandwidth, disks, vm_path = size[at], iops[at], bandwidth[at], disks[at], model.vm_path[at]
    cost = clients.price[rows.v] + disks

    def config(k: int) -> Config:
        choice = DiskChoice(skus[rows.s[k]].id, int(rows.n[k]), "none", int(size[k]), float(iops[k]),
                            float(bandwidth[k]), scaled=True)
        return Config(clients.ids[rows.v[k]], req.clients, (choice,))

    def facts(k: int) -> list[tuple[str, str]]:
        sku = skus[rows.s[k]]
        out = disk_facts(req, clients, int(rows.v[k]), int(rows.n[k]), sku)
        if size[k] >= sku.max_size:
            out.append(("disk", f"one {sku.id} volume holds at most {iops[k]:,.0f} IOPS and "
                                f"{bandwidth[k] / 2**20:,.0f} MiB/s sustained, at its largest size"))
        return out

    def variant(k: int) -> tuple:  # as for provisioned disks: the best count and size of a type on a VM
        return (clients.ids[rows.v[k]], skus[rows.s[k]].id)

    families = Labels([sku.id for sku in skus], rows.f)
    return [Batch("size-scaled volumes", cost, latency, util, Labels(clients.ids, rows.v), config, facts, variant,
                  {"vm": vm_path}, rows.n, families)]


class _Model:
    """The open model of rows (SKU ``s``, class of alike instance types ``v``, count ``n``)
    as a function of the volumes' size."""

    def __init__(self, req: Requirements, wl: Workload, cl: Clients, st: Streams, skus: list[ScaledDisk],
                 s: np.ndarray, v: np.ndarray, n: np.ndarray):
        self.wl, self.st, self.skus, self.s, self.n = wl, st, skus, s, n
        members, part = stripe_tables(st.sizes, req.search.stripe_size, int(n.max()))
        self.m = members[n - 1][:, st.size_index]                      # (rows, streams)
        self.part = part[n - 1][:, st.size_index].astype(float)
        unit = np.array([float(k.io_unit) for k in skus])[s][:, None]
        self.ops = counted_ops(req, st, self.part, unit, [skus[k].tier for k in s.tolist()])
        self.d_u = cl.d_uncached[v][:, st.size_index]
        read = np.array([k.read_latency for k in skus])[s][:, None]
        write = np.array([k.write_latency for k in skus])[s][:, None]
        self.lat = np.where(st.read, read, write)
        self.vm_path = (st.share * self.d_u).sum(axis=1)
        need = (req.require.capacity or 0) / req.clients if req.require else 0
        self.cap_per_disk = need / n
        self.step = GiB
        self.lo = np.maximum(np.array([float(k.min_size) for k in skus])[s],
                             np.ceil(self.cap_per_disk / GiB) * GiB)
        self.hi = np.array([float(k.max_size) for k in skus])[s]
        self.limits = Limits.of(req)

    def caps(self, size: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each row's sustained (ops/s, bytes/s) per volume at ``size``."""
        iops, bw = np.empty(len(size)), np.empty(len(size))
        for k, sku in enumerate(self.skus):
            rows = self.s == k
            if rows.any():
                iops[rows], bw[rows] = sku.sustained(size[rows])
        return iops, bw

    def evaluate(self, size: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray]:
        iops, bw = self.caps(size)
        util, latency = striped_open(self.wl.per_client, self.st.share, self.m, self.part, self.ops, self.d_u,
                                     self.lat, self.n, self.vm_path, iops, bw)
        util["capacity"] = self.cap_per_disk / size
        return util, latency

    def smallest(self) -> np.ndarray:
        """Each row's smallest size (whole GiB) that meets every limit; for a row that no size
        makes feasible, the smallest that meets the disks' limits (its shortfall lies
        elsewhere), or the maximum size."""
        util, latency = self.evaluate(self.hi)
        whole = self.limits.ok(util, latency)
        disks = self.limits.ok(util, latency, ("disk", "capacity"))
        kinds: np.ndarray = np.where(whole, 0, np.where(disks, 1, 2))
        lo, hi = np.floor(self.lo / GiB) - 1, np.floor(self.hi / GiB)   # lo fails (or is below the minimum), hi holds
        search = kinds < 2
        while np.any(active := search & (hi - lo > 1)):
            mid = np.floor((lo + hi) / 2)
            util, latency = self.evaluate(np.maximum(mid * GiB, self.lo))
            good = np.where(kinds == 0, self.limits.ok(util, latency),
                            self.limits.ok(util, latency, ("disk", "capacity")))
            hi = np.where(active & good, mid, hi)
            lo = np.where(active & ~good, mid, lo)
        return np.maximum(hi * GiB, self.lo)
