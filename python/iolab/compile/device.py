"""A generic device (local NVMe, an on-prem array): one cap and a read/write latency, and
optionally ``cpu_per_io`` seconds of one client core per IO, served by the client's cores
(``clients.cpus``, else the VM's vCPUs, else this machine's)."""

from __future__ import annotations

import os

from ..network import Cap, Class, Delay, Visit
from ..scenario import DeviceVolume, Scenario, ScenarioJob
from .builder import Builder, directions, work, working_set
from .vm import ClientVm


def client_cpus(s: Scenario) -> int:
    """The client's cores: ``clients.cpus``, else the VM's vCPUs, else this machine's."""
    if s.clients.cpus is not None:
        return s.clients.cpus
    if s.clients.vm:
        return s.catalog.vm(s.clients.vm).vcpus
    return os.cpu_count() or 1


def compile_volume(b: Builder, s: Scenario, name: str, vol: DeviceVolume, jobs: list[ScenarioJob],
                   client: int, vm: ClientVm) -> None:
    p = b.prefix(client)
    dev = vol.device
    defaults = s.catalog.defaults
    cap = b.cap(f"{p}{name}: device", "device", Cap(dev.iops, dev.bandwidth)) if (dev.iops or dev.bandwidth) else None
    cpu = None
    if dev.cpu_per_io:
        cpu = vm.cores(b)
        if cpu is None:  # no VM and no clients.cpus: the device is this machine's
            cores = client_cpus(s)
            cpu = b.cpu(f"{p}client cores ({cores} vCPUs of this machine)", cores)
    delay = b.delay(f"{p}{name}: device latency", "device", Delay(defaults.delay_distribution, defaults.delay_cv))
    for sj in jobs:
        job = b.job(sj.fio, client, working_set(sj.fio, 1 << 30))
        for direction, mix, nbytes in directions(sj.fio):
            latency = dev.read_latency if direction == "read" else (dev.write_latency or dev.read_latency)
            steps = ((Visit(cap, nbytes),) if cap else ()) + (Visit(delay, nbytes),)
            if cpu and dev.cpu_per_io:
                steps = (work(cpu, dev.cpu_per_io),) + steps
            b.add_class(Class("", job, direction, mix, nbytes, b.unloaded(steps, delay, latency)))
