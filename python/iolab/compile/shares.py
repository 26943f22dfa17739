"""File shares: Azure NetApp Files, Google Cloud NetApp Volumes, Azure Files premium, over
NFSv3, NFSv4.1 or SMB 3.

- The service: one cap shared by every client (throughput from size × level rate, or the
  manual-QoS throughput; Azure Files also an IOPS cap with credit bursting), plus a latency.
- The client: ``nconnect`` TCP connections (NFS) or SMB channels, IOs spread round-robin;
  each connection is a cap (one TCP stream's throughput; lower with SMB signing).
- NFSv3: each connection has its own slots (128 server contexts). NFSv4.1: one session per
  client whose slots (client default 64) do not grow with nconnect.
- SMB encryption lowers the service's throughput by the published fraction.
- Writes leave the client VM and count against its network egress cap; reads do not.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..network import Burst, Cap, Class, Delay, Fork, Hold, Step, Visit
from ..scenario import Scenario, ScenarioJob, ShareVolume
from ..units import format_size
from .builder import Builder, directions, working_set
from .vm import ClientVm

CREDIT_SECONDS = 3600.0  # Azure Files: credits = (burst - baseline) × 3600


@dataclass(frozen=True)
class Service:
    cap: str
    delay: str
    latency: float


def service(b: Builder, s: Scenario, name: str, vol: ShareVolume) -> Service:
    """The service's shared cap and latency for one volume."""
    level = s.catalog.service(vol.service, vol.level)
    proto = s.catalog.protocol(vol.protocol)
    throughput = vol.throughput or level.throughput(vol.size, large=vol.large)
    if vol.encryption and proto.encryption_loss:
        throughput *= 1.0 - proto.encryption_loss
        b.note(f"{name}: SMB encryption costs the service {proto.encryption_loss:.0%} of its throughput")
    iops = level.iops(vol.size)
    burst = None
    peak = level.burst_iops(vol.size)
    if iops and peak and peak > iops:
        burst = Burst(ops_per_s=peak, credit_ops=(peak - iops) * CREDIT_SECONDS)
    label = f"{name}: {level.id} {format_size(vol.size)}"
    cap = b.cap(label, "service", Cap(iops, throughput, None, burst))
    defaults = s.catalog.defaults
    delay = b.delay(f"{name}: service latency", "service", Delay(defaults.delay_distribution, defaults.delay_cv))
    return Service(cap, delay, vol.latency if vol.latency is not None else level.latency)


def compile_volume(b: Builder, s: Scenario, name: str, vol: ShareVolume, jobs: list[ScenarioJob],
                   client: int, vm: ClientVm, svc: Service) -> None:
    p = b.prefix(client)
    proto = s.catalog.protocol(vol.protocol)
    smb = vol.protocol == "smb3"
    count = vol.nconnect or ((proto.channels_per_nic or 1) if smb else 1)
    bandwidth = (vol.connection.bandwidth if vol.connection and vol.connection.bandwidth else None)
    if bandwidth is None:
        bandwidth = proto.signing_bandwidth if (smb and vol.signing and proto.signing_bandwidth) \
            else proto.connection_bandwidth
    word = "channel" if smb else "connection"
    conns = [b.cap(f"{p}{name}: {word} #{i + 1}", "connection", Cap(None, bandwidth)) for i in range(count)]
    per_conn_slots: list[str | None] = [None] * count
    session = None
    if vol.protocol == "nfs3":
        n = (vol.connection.slots if vol.connection and vol.connection.slots else None) or proto.slots_per_connection
        if n:
            per_conn_slots = [b.slots(f"{p}{name}: {word} #{i + 1} slots", "connection", n) for i in range(count)]
    elif vol.protocol == "nfs4.1":
        n = vol.session_slots or proto.session_slots
        if n:
            session = b.slots(f"{p}{name}: NFSv4.1 session slots", "session", n)

    for sj in jobs:
        job = b.job(sj.fio, client, working_set(sj.fio, vol.size))
        for direction, mix, nbytes in directions(sj.fio):
            tail: tuple[Step, ...] = (Visit(svc.cap, nbytes), Visit(svc.delay, nbytes))
            egress: tuple[Step, ...] = (Visit(vm.network, nbytes),) if direction == "write" and vm.network else ()
            if vol.protocol == "nfs4.1":
                spread = Fork(tuple((Visit(c, nbytes),) for c in conns), 1, "round-robin")
                inner: tuple[Step, ...] = (spread,) + tail
                route = egress + ((Hold(session, inner),) if session else inner)
            else:
                branches = []
                for c, sl in zip(conns, per_conn_slots):
                    seg: tuple[Step, ...] = (Visit(c, nbytes),) + tail
                    branches.append((Hold(sl, seg),) if sl else seg)
                route = egress + (Fork(tuple(branches), 1, "round-robin"),)
            b.add_class(Class("", job, direction, mix, nbytes, b.unloaded(route, svc.delay, svc.latency)))
