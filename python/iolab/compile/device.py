"""A generic device (local NVMe, an on-prem array): one cap and a read/write latency, and
optionally the client CPU each IO costs (``cpu_per_io``) as a second cap served by the
client's cores."""

from __future__ import annotations

import os

from ..network import Cap, Class, Delay, Visit
from ..scenario import DeviceVolume, Scenario, ScenarioJob
from .builder import Builder, directions, working_set


def client_cpus(s: Scenario) -> int:
    """The client's cores: ``clients.cpus``, else the VM's vCPUs, else this machine's."""
    if s.clients.cpus is not None:
        return s.clients.cpus
    if s.clients.vm:
        return s.catalog.vm(s.clients.vm).vcpus
    return os.cpu_count() or 1


def compile_volume(b: Builder, s: Scenario, name: str, vol: DeviceVolume, jobs: list[ScenarioJob],
                   client: int) -> None:
    p = b.prefix(client)
    dev = vol.device
    defaults = s.catalog.defaults
    cap = b.cap(f"{p}{name}: device", "device", Cap(dev.iops, dev.bandwidth)) if (dev.iops or dev.bandwidth) else None
    cpu = None
    if dev.cpu_per_io:
        cores = client_cpus(s)
        cpu = b.cap(f"{p}client CPU ({cores} cores)", "cpu", Cap(cores / dev.cpu_per_io))
    delay = b.delay(f"{p}{name}: device latency", "device", Delay(defaults.delay_distribution, defaults.delay_cv))
    for sj in jobs:
        job = b.job(sj.fio, client, working_set(sj.fio, 1 << 30))
        for direction, mix, nbytes in directions(sj.fio):
            latency = dev.read_latency if direction == "read" else (dev.write_latency or dev.read_latency)
            steps = tuple(Visit(r, nbytes) for r in (cpu, cap) if r) + (Visit(delay, nbytes),)
            b.add_class(Class("", job, direction, mix, nbytes, b.unloaded(steps, delay, latency)))
