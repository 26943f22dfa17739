"""Compile a :class:`~iolab.scenario.Scenario` into a :class:`~iolab.network.Network`.

The physics lives here, one module per storage system: ``disks`` (Azure managed disks on an
Azure VM), ``shares`` (Azure NetApp Files, Google Cloud NetApp Volumes, Azure Files over
NFS or SMB) and ``device`` (a generic device). ``vm`` builds a client VM's caps.

Each identical client gets its own copy of the per-client resources (VM caps, host cache,
connections, session slots) and of every job; a file service's cap is shared by all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..scenario import DeviceVolume, DiskVolume, Scenario, ShareVolume

if TYPE_CHECKING:
    from ..network import Network

__all__ = ["compile_scenario", "requests_per_io"]


def compile_scenario(scenario: Scenario) -> Network:
    """Build the queueing network of a scenario (pure; deterministic ids and order)."""
    # Imported here: reading a scenario uses .sizes, and `iolab check` needs no network.
    from . import device, disks, shares
    from .builder import Builder
    from .vm import client_vm

    b = Builder(clients=scenario.clients.count)
    shared: dict[str, object] = {}
    for name, vol in scenario.volumes.items():
        if isinstance(vol, ShareVolume):
            shared[name] = shares.service(b, scenario, name, vol)
    for client in range(scenario.clients.count):
        vm = client_vm(b, scenario, client)
        for name, vol in scenario.volumes.items():
            jobs = [j for j in scenario.jobs if j.volume == name]
            if not jobs:
                continue
            if isinstance(vol, DiskVolume):
                disks.compile_volume(b, scenario, name, vol, jobs, client, vm)
            elif isinstance(vol, ShareVolume):
                shares.compile_volume(b, scenario, name, vol, jobs, client, vm, shared[name])
            elif isinstance(vol, DeviceVolume):
                device.compile_volume(b, scenario, name, vol, jobs, client, vm)
    return b.network()


def requests_per_io(scenario: Scenario) -> dict[str, float]:
    """Modelled requests per application IO, by job name: 1 except for a buffered sequential
    reader over NFS, whose reads the client's read-ahead serves in requests of its own size."""
    from . import shares

    out: dict[str, float] = {}
    for j in scenario.jobs:
        vol = scenario.volumes.get(j.volume)
        if isinstance(vol, ShareVolume):
            out[j.name] = shares.requests_per_io(vol, scenario.catalog.protocol(vol.protocol), j.fio)
        else:
            out[j.name] = 1.0
    return out
