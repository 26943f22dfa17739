"""File shares: services × levels × protocols × nconnect (× client VM sizes), with the share's
size (or, for a level whose throughput is only set by manual QoS, its throughput) solved.

The physics is the compiler's (:mod:`iolab.compile.shares`) under the open model:

- the service is one cap shared by every client: ``Cap(iops(size), throughput(size))``
  from :class:`~iolab.catalog.ServiceLevel` (auto QoS or Azure Files' formulas), or the
  manual-QoS throughput;
- each client spreads its IOs round-robin over ``nconnect`` connections (SMB channels),
  each a cap of one TCP stream's bandwidth; writes also load the VM's network egress;
- where the level limits one file (Azure Files), each group of files a client's jobs spread
  their IOs over is one more cap (:mod:`iolab.compile.files`);
- NFSv3 gives each connection its slots (128), NFSv4.1 one session per client (64): the IOs
  inside (Little's law: rate × time inside) must fit, which is a utilization too;
- the unloaded-latency rule and ``R = Σ share × (Z + Σ D × stretch(U))`` as for disks, plus
  the share's load delay at the service's utilization (the level's ``load_latency``).

Feasibility only improves as the share grows, so for each (VM, nconnect) row the smallest
size is found by bisection over whole GiB (over whole MiB/s for a manual-QoS throughput),
from the largest of the capacity, the level's minimum size and what the service's own
utilization needs.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cached_property

import msgspec
import numpy as np

from ..analytic import residence
from ..catalog import ServiceLevel
from ..catalog.client import client_path, rss_queues_used
from ..compile.files import file_cap, file_groups, file_limit_text
from ..compile.shares import read_ahead_request, stack_parts, stack_seconds
from ..scenario import ShareVolume
from ..network import LoadLaw
from ..compile.vm import RECEIVE_PER_EGRESS
from ..network import Cap
from ..units import GiB, MiB, TiB, format_limit, format_rate
from .config import Config, ShareChoice
from .cost import billed_capacity, share_price, vm_price
from .requirements import NCONNECT, Requirements
from .table import Batch, Limits
from .workload import Workload

__all__ = ["search_shares", "PROTOCOLS"]

PROTOCOLS = ("nfs3", "nfs4.1", "smb3")


class _Knob(msgspec.Struct):
    """The one value solved per row: a size in GiB (auto QoS) or a throughput in MiB/s (manual)."""

    lo: int
    hi: int
    manual: bool
    caps: Callable[[int], tuple[float | None, float]]     # x -> (service ops/s or None, bytes/s)
    shape: Callable[[int], tuple[int, float, int | None]]  # x -> (size, throughput, billed pool)


def search_shares(req: Requirements, wl: Workload, levels: list[ServiceLevel]) -> list[Batch]:
    """One batch per (level, protocol): every client VM (or a generic client) × nconnect."""
    cat = req.catalog
    protocols = req.search.protocols or [p for p in PROTOCOLS if p in cat.protocols]
    vms = _vm_choices(req)
    out = []
    for level in levels:
        for proto in protocols:
            if level.service == "azure-files" and proto == "nfs3":
                continue  # Azure Files premium serves NFS 4.1 and SMB 3 (rule azure-files-protocols)
            regular = _Family(req, wl, level, proto, vms, large=False)
            batch = regular.batch()
            out.append(batch)
            if level.large_min_size is not None and not batch.feasible(Limits.of(req)).any():
                out.append(_Family(req, wl, level, proto, vms, large=True).batch())
    return out


def _vm_choices(req: Requirements) -> list[str | None]:
    """Client VM sizes for shares: none (a generic client) when ``kind: share`` names no
    VMs; with ``kind: any`` the VM sizes searched (all by default), of which only those that
    no cheaper VM matches in network bandwidth (the one VM figure a share's path uses)."""
    from .space import vms

    if req.search.kind != "any":
        return [None] if req.search.vms is None else list(vms(req))
    return list(frontier([req.catalog.vms[v] for v in vms(req)]))


def frontier(rows: list) -> list[str]:
    """VM ids that no cheaper (or as cheap) VM matches in network bandwidth (no figure:
    no cap). Unpriced VMs are kept only where they reach a bandwidth no priced one does,
    one per bandwidth."""
    def bw(vm) -> float:
        return vm.network_bandwidth or math.inf

    out: list[str] = []
    best = -1.0
    priced = sorted((v for v in rows if v.price_per_month is not None), key=lambda v: (v.price_per_month, -bw(v)))
    for vm in priced:
        if bw(vm) > best:
            out.append(vm.id)
            best = bw(vm)
    seen: set[float] = set()
    for vm in sorted((v for v in rows if v.price_per_month is None), key=bw):
        if bw(vm) > best and bw(vm) not in seen:
            out.append(vm.id)
            seen.add(bw(vm))
    return out


def _knob(req: Requirements, level: ServiceLevel, large: bool) -> _Knob:
    capacity = req.require.capacity if req.require and req.require.capacity else 0
    low, high = (level.large_min_size, level.large_max_size) if large else (level.min_size, level.max_size)
    assert low is not None and high is not None
    size_lo = math.ceil(max(low, capacity) / GiB)
    size_hi = high // GiB
    if level.rate_per_tib is not None or level.base_throughput is not None:
        def caps(x: int) -> tuple[float | None, float]:
            t = level.throughput(x * GiB, large=large)
            # provisioned levels (Azure Files v2, NetApp Volumes Flex custom) at their defaults
            return (level.provisioned_iops(x * GiB, t) if level.provisioned else level.iops(x * GiB)), t

        def shape(x: int) -> tuple[int, float, int | None]:
            size = x * GiB
            pool = billed_capacity(level, size) if level.pool_min_size is not None else None
            return size, level.throughput(size, large=large), pool

        return _Knob(size_lo, size_hi, False, caps, shape)
    # Throughput only by manual QoS (ANF Flexible): solve the throughput, size the pool for it.
    size = size_lo * GiB
    t_lo = math.ceil((level.volume_min_throughput or MiB) / MiB)
    t_hi = int(level.ceiling(large=large) // MiB)
    per_tib = level.pool_max_throughput_per_tib

    def manual_caps(x: int) -> tuple[float | None, float]:
        return None, x * MiB

    def manual_shape(x: int) -> tuple[int, float, int | None]:
        need = float(size)
        if per_tib and x * MiB > (level.pool_min_throughput or 0):
            need = max(need, x * MiB / per_tib * TiB)
        return size, x * MiB, billed_capacity(level, math.ceil(need))

    return _Knob(t_lo, t_hi, True, manual_caps, manual_shape)


class _Family:
    """Rows (client VM × nconnect) of one level and protocol, solved for the smallest share."""

    def __init__(self, req: Requirements, wl: Workload, level: ServiceLevel, proto_id: str,
                 vms: list[str | None], large: bool):
        self.req, self.wl, self.level, self.large = req, wl, level, large
        cat = req.catalog
        self.proto = proto = cat.protocol(proto_id)
        most = proto.max_nconnect
        if proto_id == "smb3" and level.max_smb_channels:
            most = min(most, level.max_smb_channels)
        counts = [c for c in (req.search.nconnect or NCONNECT) if c <= most]
        self.rows = [(vm, c) for vm in vms for c in counts]
        self.vm_ids = [vm for vm, _ in self.rows]
        self.count = np.array([c for _, c in self.rows], dtype=float)
        net = [cat.vms[vm].network_bandwidth if vm else None for vm in self.vm_ids]
        self.net = np.array([n or np.inf for n in net])
        self.recv = self.net * RECEIVE_PER_EGRESS
        vcpus = np.array([float(cat.vms[vm].vcpus) if vm else 0.0 for vm in self.vm_ids])
        # the client's figures as this service answers them (docs/model.md, "Per-service client figures")
        self.client = client = client_path(proto, level.clients.get(proto_id), proto.connection_bandwidth)
        self.cores = np.minimum(vcpus, float(client.rss_cores)) if client.rss_cores else vcpus
        self.knob = _knob(req, level, large)
        self.wl = wl = wl.requests(lambda job: read_ahead_request(self.volume(), proto, job.fio))
        st = wl.streams
        self.requests = float(sum(s.share for s in st))  # requests per application IO (1 without read-ahead)
        self.q = np.array([s.share for s in st])
        self.b = np.array([float(s.bytes) for s in st])
        self.write = np.array([s.direction == "write" for s in st])
        # the volume's back end (compile.shares): one resource every client's IOs share, in whole
        # nanoseconds of work per IO as compiled; and a connection's cap on writes alone
        ceilings = level.back_end(large=large)
        self.back_end = np.array([max(1, round(ceilings.cost(s.direction, s.bytes) * 1e9)) / 1e9 for s in st]
                                 if ceilings is not None else [0.0] * len(st))
        # one cap per group of files where the level limits one file (compile.files): each stream's
        # demand at its job's files, and the group each stream's job is in
        self.file_demand = np.zeros(len(st))
        self.file_group = np.full(len(st), -1)
        for g, group in enumerate(file_groups([j.fio for j in wl.jobs])):
            cap = file_cap(level, group.files)
            for k, s in enumerate(st):
                if cap is not None and s.job in group.jobs:
                    self.file_demand[k], self.file_group[k] = cap.demand(int(s.bytes)), g
        self.conn_write = np.where(self.write, 1.0 / client.connection_write_ops, 0.0) \
            if client.connection_write_ops else np.zeros(len(st))
        # one client core's time per IO on the protocol stack, in whole nanoseconds as compiled
        self.stack_ns = np.array([max(1, round(stack_seconds(proto, b) * 1e9)) for b in self.b], dtype=float)
        # SMB: per-IO work on the RSS cores, per-byte work on the receive queues the connections occupy,
        # every vCPU bounding both (compile.shares); a row with one connection or no cores has one pool
        parts = [stack_parts(proto, b) for b in self.b]
        self.io_ns = np.array([max(1, round(io * 1e9)) for io, _ in parts], dtype=float)
        self.byte_ns = np.array([max(1, round(nb * 1e9)) for _, nb in parts], dtype=float)
        self.vcpus = vcpus
        self.queues = np.array([rss_queues_used(min(client.rss_queues, int(v)), int(c))
                                if client.rss_queues and v > 0 and c > 1 else 0.0
                                for v, c in zip(vcpus, self.count)])
        self.latency = level.latency
        ll = level.load_latency
        self.law = LoadLaw("", ll.delay, ll.onset, ll.exponent) if ll is not None and ll.delay > 0 else None
        self.slots = proto.slots_per_connection if proto_id == "nfs3" else (
            proto.session_slots if proto_id == "nfs4.1" else None)
        self._service: dict[int, tuple[np.ndarray, float]] = {}
        self.limits = Limits.of(req)

    def volume(self) -> ShareVolume:
        """A share of this family as the candidates' scenarios have it (its protocol's
        read-ahead and rsize: the plan sets neither)."""
        lv = self.level
        return ShareVolume(service=lv.service, level=lv.level, size=lv.min_size, protocol=self.proto.id)  # type: ignore[arg-type]

    def service(self, x: int) -> tuple[np.ndarray, float]:
        """Demand per IO at the service cap for each stream, and its utilization at the load."""
        if x not in self._service:
            iops, bw = self.knob.caps(x)
            cap = Cap(iops, bw)
            d = np.array([cap.demand(int(b)) for b in self.b])
            self._service[x] = (d, self.wl.rate * float(self.q @ d))
        return self._service[x]

    @cached_property
    def _terms(self) -> dict[str, np.ndarray]:
        """What does not depend on the share's size, for every row at once (computed once, then
        read by row): the client's, connections' and VM's demands and utilizations, their part
        of the unloaded-latency rule, their residence times, and the time outside the share."""
        lam = self.wl.per_client
        c = self.count[:, None]
        conn = Cap(self.client.connection_ops or None, self.client.connection_bytes)
        d_conn = np.array([conn.demand(int(b)) for b in self.b])                 # one visit, (streams,)
        together = Cap(self.client.client_ops, self.client.client_bytes)
        d_all = np.array([together.demand(int(b)) for b in self.b])             # all connections at once
        d_net = np.where(self.write, self.b, 0.0) / self.net[:, None]            # (rows, streams)
        d_recv = np.where(self.write, 0.0, self.b) / self.recv[:, None]          # (rows, streams)
        cores = self.cores[:, None]
        queues, vcpus = self.queues[:, None], self.vcpus[:, None]
        split = (queues > 0) & (cores < vcpus)              # the RSS cores and every vCPU are two pools
        with np.errstate(divide="ignore", invalid="ignore"):
            d_cpu = np.where(cores > 0, np.where(split, self.io_ns[None, :], self.stack_ns[None, :])
                             / np.where(cores > 0, cores, 1.0) / 1e9, 0.0)
            d_queue = np.where(queues > 0, self.byte_ns[None, :] / np.where(queues > 0, queues, 1.0) / 1e9, 0.0)
            d_all_cpu = np.where(split, self.stack_ns[None, :] / np.where(split, vcpus, 1.0) / 1e9, 0.0)
        u_one = lam * float(self.q @ d_conn) / c[:, 0]
        u_w = lam * float(self.q @ self.conn_write) / c[:, 0]
        u_be = self.wl.rate * float(self.q @ self.back_end)
        u_all = np.full(len(self.rows), lam * float(self.q @ d_all))
        u_net = lam * (self.q * d_net).sum(axis=1)
        u_recv = lam * (self.q * d_recv).sum(axis=1)
        u_cpu = lam * (self.q * d_cpu).sum(axis=1)
        u_queue = lam * (self.q * d_queue).sum(axis=1)
        u_all_cpu = lam * (self.q * d_all_cpu).sum(axis=1)
        # (a connection's write cap is not one the IOs take in turn: only a branch's first cap is,
        # as analytic._turns reads the compiled fork)
        outside = (residence(d_net, u_net[:, None]) + residence(d_recv, u_recv[:, None])
                   + residence(d_cpu, u_cpu[:, None]) + residence(d_queue, u_queue[:, None])
                   + residence(d_all_cpu, u_all_cpu[:, None]) + residence(d_all[None, :], u_all[:, None]))
        u_file = self._file_utilization(lam)
        return {
            "rule": self.latency - d_net - d_recv - d_cpu - d_queue - d_all_cpu - d_conn - d_all,
            "conn": residence(d_conn[None, :], u_one[:, None], turns=c),
            "write": residence(self.conn_write[None, :], u_w[:, None]),
            "back_end": residence(self.back_end[None, :], u_be),
            "file": residence(self.file_demand[None, :], u_file[None, :]), "u_file": np.array(u_file.max(initial=0.0)),
            "outside": outside,
            "connection": np.maximum(np.maximum(u_one, u_all), u_w),
            "network": u_net, "receive": u_recv, "cpu": np.maximum(u_cpu, np.maximum(u_queue, u_all_cpu)),
            "u_be": np.array(u_be)}

    def evaluate(self, rows: np.ndarray, x: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """Each of ``rows``' utilizations (by kind) and latency at share size (or throughput) ``x``."""
        lam = self.wl.per_client
        t = self._terms
        d_s, u_s = self.service(x)
        z = np.maximum(0.0, t["rule"][rows] - d_s - self.conn_write - self.back_end - self.file_demand)
        load = self.law.delay(u_s) if self.law is not None else 0.0
        inside = (z + load + t["conn"][rows] + residence(d_s[None, :], u_s)
                  + t["write"][rows] + t["back_end"] + t["file"])
        latency = (self.q * (inside + t["outside"][rows])).sum(axis=1) / self.requests  # per request, as solve_open
        util = {"service": np.full(len(rows), max(u_s, float(t["u_be"]))), "connection": t["connection"][rows],
                "network": t["network"][rows], "receive": t["receive"][rows], "cpu": t["cpu"][rows]}
        if self.file_demand.any():
            util["file"] = np.full(len(rows), float(t["u_file"]))
        occupancy = lam * (self.q * inside).sum(axis=1)
        if self.proto.id == "nfs3" and self.slots:
            util["connection-slots"] = occupancy / self.count[rows] / self.slots
        elif self.proto.id == "nfs4.1" and self.slots:
            util["session"] = occupancy / self.slots
        util["capacity"] = np.full(len(rows), self._capacity_util(x))
        return util, latency

    def _file_utilization(self, lam: float) -> np.ndarray:
        """Each stream's utilization of its job's files at ``lam`` IOs/s per client: what every
        stream of the group puts on the group's cap (0 for a stream on no such cap)."""
        load = lam * self.q * self.file_demand
        return np.array([load[self.file_group == g].sum() if g >= 0 else 0.0 for g in self.file_group])

    def _capacity_util(self, x: int) -> float:
        need = self.req.require.capacity if self.req.require and self.req.require.capacity else 0
        return need / self.knob.shape(x)[0]

    def ok(self, rows: np.ndarray, x: int) -> np.ndarray:
        util, latency = self.evaluate(rows, x)
        return self.limits.ok(util, latency)

    def _service_floor(self) -> int:
        """The smallest x at which the service alone keeps its margin (hi when none does)."""
        lo, hi = self.knob.lo, self.knob.hi
        if self.limits.over("service", self.service(hi)[1]):
            return hi
        while lo < hi:
            mid = (lo + hi) // 2
            if not self.limits.over("service", self.service(mid)[1]):
                hi = mid
            else:
                lo = mid + 1
        return lo

    def solve(self) -> np.ndarray:
        """The smallest x per row at which it is feasible; -1 where none is."""
        n = len(self.rows)
        every = np.arange(n)
        start = self._service_floor()
        hi_ok = self.ok(every, self.knob.hi)
        lo = np.full(n, start)
        hi = np.full(n, self.knob.hi)
        hi[hi_ok & self.ok(every, start)] = start  # often the service's own floor is the answer
        while True:
            active = np.nonzero(hi_ok & (lo < hi))[0]
            if not len(active):
                break
            mids = (lo[active] + hi[active]) // 2
            for mid in sorted(set(mids.tolist())):  # not np.unique: it imports numpy.ma (~20 ms)
                rows = active[mids == mid]
                good = self.ok(rows, int(mid))
                hi[rows[good]] = mid
                lo[rows[~good]] = mid + 1
        return np.where(hi_ok, hi, -1)

    def batch(self) -> Batch:
        level, req = self.level, self.req
        x = self.solve()
        # A row that no size makes feasible is shown at the largest share: its least-failing attempt.
        shown = np.where(x >= 0, x, self.knob.hi)
        util: dict[str, list[float]] = {}
        latency = np.zeros(len(self.rows))
        for value in sorted(set(shown.tolist())):
            rows = np.nonzero(shown == value)[0]
            u, lat = self.evaluate(rows, int(value))
            for k, col in u.items():
                util.setdefault(k, [0.0] * len(self.rows))
                for r, val in zip(rows, col):
                    util[k][r] = float(val)
            latency[rows] = lat
        cost = np.empty(len(self.rows))
        shapes = [self.knob.shape(int(v)) for v in shown]
        for r, (vm, _) in enumerate(self.rows):
            size, throughput, pool = shapes[r]
            price = share_price(level, billed_capacity(level, size, pool), throughput if self.knob.manual else None)
            vprice = vm_price(req.catalog.vms[vm] if vm else None)
            cost[r] = np.nan if price is None or vprice is None else price + vprice * req.clients
        proto_id, large, manual = self.proto.id, self.large, self.knob.manual
        rows_list, knob = self.rows, self.knob

        def config(i: int) -> Config:
            size, throughput, pool = shapes[i]
            vm, count = rows_list[i]
            return Config(vm, req.clients, share=ShareChoice(level.service, level.level, size, throughput, proto_id,
                                                              count, large, manual, pool))

        def facts(i: int) -> list[tuple[str, str]]:
            out = []
            size, throughput, _ = shapes[i]
            if int(shown[i]) >= knob.hi:
                iops = f" and {level.max_iops:,.0f} IOPS" if level.iops_per_gib and level.max_iops else ""
                text = (f"one {level.id}{' large' if large else ''} volume is capped at "
                        f"{format_limit(level.ceiling(large=large))}{iops}")
                out += [("service", text), ("capacity", text)]
            if proto_id == "nfs4.1" and self.slots:
                out.append(("session", f"NFSv4.1 has one session of {self.slots} slots per client, "
                                       "whatever nconnect is"))
            if proto_id == "nfs3" and self.slots:
                out.append(("connection-slots", f"each NFSv3 connection has {self.slots} slots"))
            if self.file_demand.any():
                out.append(("file", f"one file in a share of {level.id} serves at most {file_limit_text(level)}; "
                                    "fio gives each clone (numjobs) its own nrfiles files unless filename is set"))
            out.append(("connection", f"one {proto_id} connection carries about "
                                      f"{format_rate(self.client.connection_bytes, binary=True)}"))
            return out

        family = f"{level.id}{' large' if large else ''} {proto_id}"
        group = [f"{level.id}{' large' if large else ''} {proto_id}"] * len(self.rows)
        def variant(i: int) -> tuple:
            return (rows_list[i][0], level.id, proto_id, large)

        return Batch(family, cost, latency, {k: np.array(v) for k, v in util.items()}, group, config, facts,
                     variant)
