"""A generic device (local NVMe, an on-prem array): one cap and a read/write latency, and
optionally ``cpu_per_io`` seconds of one client core per IO (on all the client's cores)."""

from __future__ import annotations

from ..network import Cap, Class, Delay, Visit
from ..scenario import DeviceVolume, Scenario, ScenarioJob
from .builder import Builder, directions, work, working_set
from .vm import ClientVm


def compile_volume(b: Builder, s: Scenario, name: str, vol: DeviceVolume, jobs: list[ScenarioJob],
                   client: int, vm: ClientVm) -> None:
    p = b.prefix(client)
    dev = vol.device
    defaults = s.catalog.defaults
    cap = b.cap(f"{p}{name}: device", "device", Cap(dev.iops, dev.bandwidth)) if (dev.iops or dev.bandwidth) else None
    delay = b.delay(f"{p}{name}: device latency", "device", Delay(defaults.delay_distribution, defaults.delay_cv))
    for sj in jobs:
        job = b.job(sj.fio, client, working_set(sj.fio, 1 << 30))
        for direction, mix, nbytes in directions(sj.fio):
            latency = dev.read_latency if direction == "read" else (dev.write_latency or dev.read_latency)
            steps = ((Visit(cap, nbytes),) if cap else ()) + (Visit(delay, nbytes),)
            cpu = vm.cores(b) if dev.cpu_per_io else None
            if cpu and dev.cpu_per_io:
                steps = (work(cpu, dev.cpu_per_io),) + steps
            b.add_class(Class("", job, direction, mix, nbytes, b.unloaded(steps, delay, latency)))
