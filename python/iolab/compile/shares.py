"""File shares: Azure NetApp Files, Google Cloud NetApp Volumes, Azure Files premium, over
NFSv3, NFSv4.1 or SMB 3.

- The service: one cap shared by every client (throughput from size × level rate, or the
  manual-QoS throughput; Azure Files also an IOPS cap with credit bursting), plus a latency,
  plus a load delay that grows as the volume nears its quota (the level's ``load_latency``).
- The client: ``nconnect`` TCP connections (NFS) or SMB channels, IOs spread round-robin;
  each connection is one client core: a cap in requests/s and bytes/s (fewer bytes with SMB
  signing, SMB encryption or NFS over TLS), lowered where the service states what one
  connection to it carries; where it states what one client's connections carry together,
  that is one more cap (the service level's ``clients`` figures, :mod:`iolab.catalog.client`).
- The protocol stack costs the client's cores (at most the RSS cores) per IO and per byte;
  signing, encryption and TLS add per byte. Where the protocol names its receive queues (SMB),
  the per-byte work runs on the queues the connections occupy instead.
- NFSv3: each connection has its own slots (128 server contexts), and a storage endpoint takes
  at most ``endpoint_slots`` from all clients together. NFSv4.1: one session per client whose
  slots (client default 64) do not grow with nconnect.
- The volume's back end: where the level states ceilings (reads/s, writes/s, write bandwidth:
  Azure NetApp Files' scale-out benchmarks, regular and large volumes apart), one resource that
  reads and writes share, each IO costing it its direction's ``max(1 / ops, bytes / bandwidth)``.
- SMB encryption also lowers the service's throughput by the published fraction.
- Writes leave the client VM and count against its network egress cap; reads count against
  what it can receive.
"""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from ..network import Burst, Cap, Class, Delay, Fork, Hold, Load, LoadLaw, Step, Visit
from ..catalog import Protocol
from ..catalog.service import Ceilings
from ..catalog.client import ClientPath, client_path, rss_queues_used
from ..fio import FioJob
from ..scenario import Scenario, ScenarioJob, ShareVolume
from ..units import format_rate, format_size
from .builder import Builder, directions, work, working_set
from .files import file_cap, file_groups, file_label
from .vm import ClientVm

CREDIT_SECONDS = 3600.0  # Azure Files: credits = (burst - baseline) × 3600
LOAD_WINDOW = 0.01  # seconds over which the simulator measures the quota's recent utilization


class Service(msgspec.Struct, frozen=True):
    cap: str
    delay: str
    latency: float
    endpoint: str | None = None
    load: LoadLaw | None = None
    back_end: str | None = None
    ceilings: Ceilings | None = None


def service(b: Builder, s: Scenario, name: str, vol: ShareVolume) -> Service:
    """The service's shared cap and latency for one volume."""
    level = s.catalog.service(vol.service, vol.level)
    proto = s.catalog.protocol(vol.protocol)
    throughput = vol.throughput or level.throughput(vol.size, large=vol.large)
    if vol.encryption and proto.encryption_loss:
        throughput *= 1.0 - proto.encryption_loss
        b.note(f"{name}: SMB encryption costs the service {proto.encryption_loss:.0%} of its throughput")
    iops = vol.iops or (level.provisioned_iops(vol.size, throughput) if level.provisioned else level.iops(vol.size))
    burst = None
    peak = level.provisioned_burst(iops) if level.provisioned and iops else level.burst_iops(vol.size)
    if iops and peak and peak > iops:
        burst = Burst(ops_per_s=peak, credit_ops=(peak - iops) * CREDIT_SECONDS)
    label = f"{name}: {level.id} {format_size(vol.size)}"
    cap = b.cap(label, "service", Cap(iops, throughput, None, burst))
    defaults = s.catalog.defaults
    delay = b.delay(f"{name}: service latency", "service", Delay(defaults.delay_distribution, defaults.delay_cv))
    endpoint = None
    if proto.endpoint_slots and proto.slots_per_connection:
        per_conn = (vol.connection.slots if vol.connection and vol.connection.slots else None) \
            or proto.slots_per_connection
        count = connections(s, name, vol, proto)
        total = s.clients.count * count * per_conn
        if total > proto.endpoint_slots:
            endpoint = b.slots(f"{name}: storage endpoint slots", "service", proto.endpoint_slots)
            b.note(f"{name}: {s.clients.count} client(s) x {count} connection(s) x {per_conn} slots "
                   f"= {total:,} outstanding requests allowed, over the endpoint's {proto.endpoint_slots:,}")
    law = level.load_latency
    load = (LoadLaw(cap, law.delay, law.onset, law.exponent, LOAD_WINDOW)
            if law is not None and law.delay > 0 else None)
    ceilings = level.back_end(large=vol.large)
    back_end = None
    if ceilings is not None:
        back_end = b.cap(f"{name}: the volume's back end ({_ceilings_text(ceilings)})", "service", Cap(None, 1e9))
    return Service(cap, delay, vol.latency if vol.latency is not None else level.latency, endpoint, load,
                   back_end, ceilings)


def _ceilings_text(c: Ceilings) -> str:
    parts = [f"{c.read_iops:,.0f} reads/s" if c.read_iops else "",
             f"{format_rate(c.read_bandwidth, binary=True)} of reads" if c.read_bandwidth else "",
             f"{c.write_iops:,.0f} writes/s" if c.write_iops else "",
             f"{format_rate(c.write_bandwidth, binary=True)} of writes" if c.write_bandwidth else ""]
    return ", ".join(p for p in parts if p)


def connections(s: Scenario, name: str, vol: ShareVolume, proto: Protocol) -> int:
    """Connections (channels) one client opens to the volume: ``nconnect``; SMB's channels per
    RSS NIC by default; one per process (the jobs' numjobs) for Direct NFS."""
    if proto.connection_per_process:
        return max(1, sum(j.fio.numjobs for j in s.jobs if j.volume == name))
    if vol.nconnect:
        return vol.nconnect
    return (proto.channels_per_nic or 1) if vol.protocol == "smb3" else 1


def read_ahead_request(vol: ShareVolume, proto: Protocol, fio: FioJob) -> int | None:
    """The request size that serves a buffered (``direct=0``) sequential reader over the kernel
    NFS client (``min(rsize, window)``), or ``None`` when its IOs are the application's own."""
    window = vol.read_ahead_kb * 1024 if vol.read_ahead_kb else proto.read_ahead
    rsize = vol.rsize or proto.rsize or window
    if fio.direct or fio.rw != "read" or not window or not rsize:
        return None
    return min(rsize, window)


def requests_per_io(vol: ShareVolume, proto: Protocol, fio: FioJob) -> float:
    """Modelled requests per application read: its mean size over the read-ahead request (1
    when the job's IOs are modelled as they are)."""
    request = read_ahead_request(vol, proto, fio)
    if request is None:
        return 1.0
    return sum(share * size for _, share, size in directions(fio)) / request


def read_ahead(b: Builder, name: str, vol: ShareVolume, proto: Protocol, fio: FioJob) -> FioJob:
    """A buffered (``direct=0``) sequential reader over the kernel NFS client is served by the
    client's read-ahead: per stream, ``window / request`` requests of ``min(rsize, window)``
    in flight, whatever the application's ``bs`` and ``iodepth``. A rate limit (fio's
    ``rate_iops``, in application reads) becomes the requests those reads make."""
    request = read_ahead_request(vol, proto, fio)
    if request is None:
        return fio
    window = vol.read_ahead_kb * 1024 if vol.read_ahead_kb else proto.read_ahead
    depth = max(1, window // request)
    rate = fio.rate_iops * requests_per_io(vol, proto, fio) if fio.rate_iops else None
    limit = (f"; its rate_iops of {fio.rate_iops:g} reads/s is {rate:g} requests/s"
             if rate is not None and rate != fio.rate_iops else "")
    b.note(f"{name}: {fio.name} reads buffered (direct=0): the client's read-ahead keeps {depth} request(s) "
           f"of {format_size(request)} in flight per stream ({format_size(window)} window); IOPS count "
           f"those requests{limit}")
    options = {k: v for k, v in fio.options.items() if k not in ("bssplit", "bsrange")}
    think: dict = {}
    if fio.thinktime:
        # the application's stalls, spread over the requests its reads become: as many
        # requests a second as its reads make while it mostly waits
        think = {"thinktime": fio.think * depth / (requests_per_io(vol, proto, fio) * fio.depth),
                 "thinktime_blocks": depth}
    return fio.replace(bs=request, bs_write=None, iodepth=depth, ioengine="libaio", options=options,
                       rate_iops=rate, **think)


def connection_costs(proto: Protocol, vol: ShareVolume) -> tuple[float, float, float]:
    """One connection's (ops/s, bytes/s) and the extra core seconds per byte that SMB
    signing, SMB encryption or NFS over TLS add (``1 / their bandwidth − 1 / plain``)."""
    plain = proto.connection_bandwidth
    slowest, extra = plain, 0.0
    for on, rate in ((vol.signing, proto.signing_bandwidth), (vol.encryption, proto.encryption_bandwidth),
                     (vol.tls, proto.tls_bandwidth)):
        if on and rate:
            extra += 1.0 / rate - 1.0 / plain
            slowest = 1.0 / (1.0 / slowest + 1.0 / rate - 1.0 / plain)
    if vol.connection and vol.connection.bandwidth:
        slowest = vol.connection.bandwidth
    return proto.connection_iops or 0.0, slowest, extra


def stack_parts(proto: Protocol, nbytes: float, extra: float = 0.0) -> tuple[float, float]:
    """Seconds of one client core that an IO of ``nbytes`` costs the protocol stack, as (per-IO
    part, per-byte part): ``1 / connection_iops``, and ``nbytes`` × (``1 /
    connection_bandwidth`` + ``extra``, the per-byte cost of signing, encryption or TLS)."""
    per_io = 1.0 / proto.connection_iops if proto.connection_iops else 0.0
    return per_io, nbytes * (1.0 / proto.connection_bandwidth + extra)


def stack_seconds(proto: Protocol, nbytes: float, extra: float = 0.0) -> float:
    """Seconds of one client core that an IO of ``nbytes`` costs the protocol stack (both parts
    of :func:`stack_parts`)."""
    return sum(stack_parts(proto, nbytes, extra))


def client_figures(s: Scenario, vol: ShareVolume) -> tuple[ClientPath, float]:
    """The client's figures for ``vol`` (the protocol's, capped by the service level's own for
    that protocol) and the extra core seconds per byte of signing, encryption or TLS. A
    ``connection.bandwidth`` in the scenario is taken as it is."""
    proto = s.catalog.protocol(vol.protocol)
    level = s.catalog.service(vol.service, vol.level)
    _, bandwidth, extra = connection_costs(proto, vol)
    path = client_path(proto, level.clients.get(vol.protocol), bandwidth)
    if vol.connection and vol.connection.bandwidth:
        path = replace(path, connection_bytes=bandwidth)
    return path, extra


def describe(name: str, level: str, protocol: str, path: ClientPath, proto: Protocol, word: str) -> str | None:
    """A note naming the service's own client figures where they differ from the protocol's."""
    parts = []
    if path.connection_ops and path.connection_ops != proto.connection_iops:
        parts.append(f"one {word} carries at most {path.connection_ops:,.0f} requests/s")
    if path.connection_bytes < proto.connection_bandwidth:
        parts.append(f"one {word} carries at most {format_rate(path.connection_bytes, binary=True)}")
    if path.connection_write_ops:
        parts.append(f"one {word} carries at most {path.connection_write_ops:,.0f} write requests/s")
    if path.client_ops:
        parts.append(f"a client's {word}s carry {path.client_ops:,.0f} requests/s together")
    if path.client_bytes:
        parts.append(f"a client's {word}s carry {format_rate(path.client_bytes, binary=True)} together")
    if path.rss_cores != proto.rss_cores:
        parts.append(f"the stack runs on at most {path.rss_cores} cores")
    if not parts:
        return None
    return f"{name}: {level} over {protocol}: " + "; ".join(parts) + " (the service's figures, fitted: see docs/model.md)"


def file_caps(b: Builder, s: Scenario, label: str, vol: ShareVolume, jobs: list[ScenarioJob]) -> dict[int, str]:
    """One client's files on the share where its level limits one file (:mod:`.files`): a cap
    per group of files, by the index of each job on it."""
    level = s.catalog.service(vol.service, vol.level)
    names = [sj.fio.name for sj in jobs]
    out: dict[int, str] = {}
    for group in file_groups([sj.fio for sj in jobs]):
        cap = file_cap(level, group.files)
        if cap is not None:
            rid = b.cap(f"{label}: {file_label(group, names, level)}", "file", cap)
            out.update((i, rid) for i in group.jobs)
    return out


def compile_volume(b: Builder, s: Scenario, name: str, vol: ShareVolume, jobs: list[ScenarioJob],
                   client: int, vm: ClientVm, svc: Service) -> None:
    p = b.prefix(client)
    proto = s.catalog.protocol(vol.protocol)
    smb = vol.protocol == "smb3"
    count = connections(s, name, vol, proto)
    path, extra = client_figures(s, vol)
    word = "channel" if smb else "connection"
    note = describe(name, f"{vol.service}-{vol.level}", vol.protocol, path, proto, word)
    if note:
        b.note(note)
    conns = [b.cap(f"{p}{name}: {word} #{i + 1}", "connection", Cap(path.connection_ops or None, path.connection_bytes))
             for i in range(count)]
    writes = [b.cap(f"{p}{name}: {word} #{i + 1} writes", "connection", Cap(path.connection_write_ops, None))
              for i in range(count)] if path.connection_write_ops else [None] * count
    together = None
    if path.client_ops or path.client_bytes:
        together = b.cap(f"{p}{name}: the client's {word}s together", "connection",
                         Cap(path.client_ops, path.client_bytes))
    cpu = vm.cores(b, path.rss_cores)
    queues = machine = None
    if cpu and path.rss_queues and vm.cpus and count > 1:  # one connection: its own cap is its queue
        q = min(path.rss_queues, vm.cpus)
        used = rss_queues_used(q, count)
        queues = b.cap(f"{p}{name}: receive queues ({used:.2f} of {q} busy with {count} {word}(s))", "cpu",
                       Cap(None, used * 1e9))
        machine = vm.cores(b)
    per_conn_slots: list[str | None] = [None] * count
    session = None
    if vol.protocol in ("nfs3", "dnfs"):
        n = (vol.connection.slots if vol.connection and vol.connection.slots else None) or proto.slots_per_connection
        if n:
            per_conn_slots = [b.slots(f"{p}{name}: {word} #{i + 1} slots", "connection", n) for i in range(count)]
    elif vol.protocol == "nfs4.1":
        n = vol.session_slots or proto.session_slots
        if n:
            session = b.slots(f"{p}{name}: NFSv4.1 session slots", "session", n)
        per_conn = proto.slots_per_connection
        if per_conn and (not n or n > count * per_conn):
            # the server takes at most per_conn requests on one connection: a session with
            # more slots than its connections take is held by the connections
            per_conn_slots = [b.slots(f"{p}{name}: {word} #{i + 1} slots", "connection", per_conn)
                              for i in range(count)]

    files = file_caps(b, s, p + name, vol, jobs)
    for i, sj in enumerate(jobs):
        fio = read_ahead(b, name, vol, proto, sj.fio)
        job = b.job(fio, client, working_set(fio, vol.size))
        for direction, mix, nbytes in directions(fio):
            tail: tuple[Step, ...] = ((Visit(files[i], nbytes),) if i in files else ()) + (Visit(svc.cap, nbytes),)
            if svc.back_end and svc.ceilings:
                tail += (work(svc.back_end, svc.ceilings.cost(direction, nbytes)),)
            tail += (Visit(svc.delay, nbytes),)
            if svc.load is not None:
                tail += (Load(svc.delay, nbytes, svc.load),)
            link = vm.network if direction == "write" else vm.receive
            client_side: tuple[Step, ...] = (Visit(link, nbytes),) if link else ()
            if together:
                client_side = (Visit(together, nbytes),) + client_side
            per_io, per_byte = stack_parts(proto, nbytes, extra)
            if queues:
                # per-IO work on the RSS cores, per-byte work on the queues the connections occupy;
                # they may be the same cores, so every vCPU of the VM bounds the two together
                both = work(machine, per_io + per_byte)
                client_side = ((work(queues, per_byte), both) if machine == cpu else
                               (work(cpu, per_io), work(queues, per_byte), both)) + client_side
            elif cpu:
                client_side = (work(cpu, per_io + per_byte),) + client_side
            def at(c: str, w: str | None) -> tuple[Step, ...]:
                return (Visit(c, nbytes),) + ((Visit(w, nbytes),) if w and direction == "write" else ())

            if vol.protocol == "nfs4.1":
                spread = Fork(tuple(((Hold(sl, at(c, w) + tail),) if sl else at(c, w))
                                    for c, w, sl in zip(conns, writes, per_conn_slots)), 1, "round-robin")
                inner: tuple[Step, ...] = (spread,) + (() if per_conn_slots[0] else tail)
                route = client_side + ((Hold(session, inner),) if session else inner)
            else:
                branches = []
                for c, w, sl in zip(conns, writes, per_conn_slots):
                    seg: tuple[Step, ...] = at(c, w) + tail
                    branches.append((Hold(sl, seg),) if sl else seg)
                route = client_side + (Fork(tuple(branches), 1, "round-robin"),)
                if svc.endpoint:
                    route = (Hold(svc.endpoint, route),)
            b.add_class(Class("", job, direction, mix, nbytes, b.unloaded(route, svc.delay, svc.latency)))
