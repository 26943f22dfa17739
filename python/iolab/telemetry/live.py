"""``characterize --live``: sample ``/proc/diskstats`` (a block device) or
``/proc/self/mountstats`` (an NFS mount) every interval, until the duration ends or Ctrl-C."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from ..errors import InputError, SchemaError
from .counters import Backwards, disk_sample, nfs_sample, parse_diskstats, parse_mountstats
from .model import Sample, Trace

__all__ = ["ALL", "Target", "resolve_target", "sample_live"]

#: ``--live all``: every block device in /proc/diskstats, combined as telemetry files are
#: (whole disks; partitions, device-mapper and loop devices keep their own figures).
ALL = "all"


class Target:
    """What to sample: ``kind`` "disk" (a /proc/diskstats name) or "nfs" (a mount point)."""

    def __init__(self, kind: str, name: str, proc: Path):
        self.kind, self.name, self.proc = kind, name, proc

    @property
    def file(self) -> Path:
        return self.proc / ("diskstats" if self.kind == "disk" else "self/mountstats")

    def read(self) -> dict:
        try:
            text = self.file.read_text()
        except OSError as e:
            raise InputError(f"cannot read: {e.strerror or e}", file=str(self.file)) from None
        lines = list(enumerate(text.splitlines(), 1))
        return parse_diskstats(lines, str(self.file)) if self.kind == "disk" else \
            parse_mountstats(lines, str(self.file))


def resolve_target(spec: str, proc: Path = Path("/proc")) -> Target:
    """A device name (``sda``, ``/dev/nvme0n1``) or a mount point (NFS, or any mount of a
    block device) to a :class:`Target`."""
    name = spec[5:] if spec.startswith("/dev/") else spec
    disks = parse_diskstats(list(enumerate((proc / "diskstats").read_text().splitlines(), 1)), str(proc / "diskstats"))
    if name in disks or spec == ALL:
        return Target("disk", name, proc)
    if spec.startswith("/dev/"):
        real = os.path.realpath(spec)
        if Path(real).name in disks:
            return Target("disk", Path(real).name, proc)
    mount = os.path.realpath(spec) if spec.startswith("/") else spec
    nfs = parse_mountstats(list(enumerate((proc / "self/mountstats").read_text().splitlines(), 1)),
                           str(proc / "self/mountstats"))
    if mount in nfs:
        return Target("nfs", mount, proc)
    for line in (proc / "self/mountinfo").read_text().splitlines():
        f = line.split()
        if len(f) > 4 and f[4] == mount:
            majmin = f[2]
            for dev_line in (proc / "diskstats").read_text().splitlines():
                d = dev_line.split()
                if len(d) > 3 and f"{d[0]}:{d[1]}" == majmin:
                    return Target("disk", d[2], proc)
    raise SchemaError(f"{spec!r} is neither a block device in /proc/diskstats nor an NFS or block-device mount "
                      f"(an overlay or tmpfs has no device of its own: name a device, or '{ALL}' for every one; "
                      f"devices: {', '.join(sorted(disks)[:12])})", field="--live")


def device_size(target: Target, name: str, sys: Path = Path("/sys")) -> int | None:
    """The size in bytes of a block device (``/sys/class/block/NAME/size``, 512-byte
    sectors) or of the file system of an NFS mount; None when it cannot be read."""
    try:
        if target.kind == "nfs":
            st = os.statvfs(name)
            return st.f_blocks * st.f_frsize or None
        return int((sys / "class" / "block" / name.replace("/", "!") / "size").read_text().split()[0]) * 512 or None
    except (OSError, ValueError, IndexError):
        return None


def sample_live(target: Target, *, duration: float, interval: float, trace: Trace,
                on_sample: Callable[[Sample], None] = lambda s: None,
                clock: Callable[[], float] = time.time, sleep: Callable[[float], None] = time.sleep) -> list[Sample]:
    """Take samples until ``duration`` has passed; on KeyboardInterrupt return what there is."""
    out: list[Sample] = []
    before, t_before = target.read(), clock()
    end = t_before + duration
    try:
        while clock() < end - 1e-6:
            sleep(max(0.0, min(interval, end - clock())))
            after, t_after = target.read(), clock()
            dt = t_after - t_before
            names = [n for n in before if n in after] if target.name == ALL else [target.name]
            for name in names:
                a, b = before.get(name), after.get(name)
                if a is None or b is None:
                    raise InputError(f"{name} disappeared from {target.file}", field="--live")
                if dt > 0:
                    try:
                        s = disk_sample(a, b, dt, t_after) if target.kind == "disk" else nfs_sample(a, b, dt, t_after)
                    except Backwards as e:
                        trace.notes.append(f"{name}: one interval left out: {e} (reset or remounted)")
                        continue
                    out.append(s)
                    on_sample(s)
            before, t_before = after, t_after
    except KeyboardInterrupt:
        trace.notes.append(f"stopped by Ctrl-C after {len(out)} samples")
    trace.samples.extend(out)
    for name in {s.device for s in out}:
        size = device_size(target, name)
        if size:
            trace.sizes[name] = size
    trace.sources.append({"file": str(target.file), "format": "live " + ("diskstats" if target.kind == "disk"
                                                                      else "mountstats"), "samples": len(out)})
    return out
