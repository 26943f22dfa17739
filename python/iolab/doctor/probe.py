"""What a Linux client's files say about its storage: mounts (``/proc/self/mountinfo``,
``/proc/self/mountstats``), NFS read-ahead (``/sys/class/bdi/MAJ:MIN/read_ahead_kb``), the
``sunrpc`` slot tables, the ``nfs`` module's ``max_session_slots``, SMB channels
(``/proc/fs/cifs/DebugData``), block devices' queue settings and md/LVM stripes, and the
kernel version.

Every path is read under ``root`` (``/`` for this machine, or a saved copy). A file that is
absent is reported as unknown; a file that exists but cannot be read, or does not look
like what the kernel writes there, is an input error naming the file (and the line).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from ..telemetry.counters import parse_mountstats

__all__ = ["Mount", "Device", "System", "read_system", "SUNRPC_FILES", "SERVICES"]

SERVICES = ("anf", "azure-files", "gcnv")
SUNRPC_FILES = ("tcp_slot_table_entries", "tcp_max_slot_table_entries", "udp_slot_table_entries")


@dataclass
class Mount:
    mount_point: str
    fstype: str
    source: str
    server: str
    export: str
    options: dict[str, str]
    majmin: str
    service: str = "unknown"
    read_ahead_kb: int | None = None
    transports: int | None = None          # xprt lines in mountstats (NFS)
    max_slots: list[int] = field(default_factory=list)
    channels: int | None = None            # SMB channels from DebugData
    ops: dict[str, list[int]] = field(default_factory=dict)   # mountstats per-op counters since the mount

    @property
    def nfs(self) -> bool:
        return self.fstype in ("nfs", "nfs4")

    @property
    def protocol(self) -> str:
        """The scenario's protocol name: nfs3, nfs4.1 or smb3."""
        if not self.nfs:
            return "smb3"
        vers = self.options.get("vers") or self.options.get("nfsvers") or ("4.1" if self.fstype == "nfs4" else "3")
        return "nfs3" if vers.startswith("3") else "nfs4.1"

    @property
    def nconnect(self) -> int:
        try:
            return int(self.options.get("nconnect", "1"))
        except ValueError:
            return 1

    def to_json(self) -> dict:
        doc = {"mount_point": self.mount_point, "fstype": self.fstype, "server": self.server,
               "export": self.export, "options": self.options, "service": self.service,
               "protocol": self.protocol}
        if self.nfs:
            doc.update({"nconnect": self.nconnect, "transports": self.transports,
                        "read_ahead_kb": self.read_ahead_kb, "max_slots": self.max_slots})
        else:
            doc["channels"] = self.channels
        return doc


@dataclass
class Device:
    name: str
    scheduler: str | None
    nr_requests: int | None
    read_ahead_kb: int | None
    max_sectors_kb: int | None
    rotational: bool | None
    kind: str = "disk"                     # disk | md | dm
    level: str | None = None               # md RAID level
    members: list[str] = field(default_factory=list)
    chunk_kb: int | None = None            # stripe unit (md chunk_size, or the queue's minimum_io_size)
    dm_name: str | None = None
    vendor: str | None = None              # device/vendor (SCSI), as the device reports it
    model: str | None = None               # device/model (SCSI and NVMe)
    hw_queues: int | None = None           # blk-mq hardware queues (sys/block/NAME/mq/*): nr_requests is per queue
    cloud: str | None = None               # azure | gcp | aws: a cloud provider's disk, told by vendor and model
    network: bool | None = None            # a network disk (managed disk, PD, EBS), not a local one

    @property
    def queue_slots(self) -> int | None:
        """Requests that may queue for the disk: nr_requests on each hardware queue."""
        return None if self.nr_requests is None else self.nr_requests * (self.hw_queues or 1)

    def to_json(self) -> dict:
        return {"name": self.name, "kind": self.kind, "scheduler": self.scheduler, "nr_requests": self.nr_requests,
                "read_ahead_kb": self.read_ahead_kb, "max_sectors_kb": self.max_sectors_kb,
                "rotational": self.rotational, "level": self.level, "members": self.members,
                "chunk_kb": self.chunk_kb, "dm_name": self.dm_name, "vendor": self.vendor, "model": self.model,
                "hw_queues": self.hw_queues, "cloud": self.cloud, "network": self.network}


@dataclass
class System:
    root: str
    kernel: str | None
    mounts: list[Mount]
    devices: list[Device]
    sunrpc: dict[str, int | None]
    max_session_slots: int | None
    hinted: int = 0
    """Mounts whose service came from ``read_system``'s ``service`` (their server is an address)."""

    def kernel_at_least(self, major: int, minor: int) -> bool | None:
        m = re.match(r"^(\d+)\.(\d+)", self.kernel or "")
        return None if not m else (int(m.group(1)), int(m.group(2))) >= (major, minor)

    def to_json(self) -> dict:
        return {"root": self.root, "kernel": self.kernel, "sunrpc": self.sunrpc,
                "nfs": {"max_session_slots": self.max_session_slots},
                "mounts": [m.to_json() for m in self.mounts], "devices": [d.to_json() for d in self.devices]}


class _Root:
    def __init__(self, root: Path):
        self.root = root

    def path(self, rel: str) -> Path:
        return self.root / rel.lstrip("/")

    def text(self, rel: str, *, required: bool = False) -> str | None:
        p = self.path(rel)
        if not p.exists():
            if required:
                raise InputError("missing: a Linux client always has this file (is --root the copy of /?)",
                                 file=str(p))
            return None
        try:
            return p.read_text()
        except (OSError, UnicodeDecodeError) as e:
            raise InputError(f"cannot read: {getattr(e, 'strerror', None) or e}", file=str(p)) from None

    def integer(self, rel: str) -> int | None:
        t = self.text(rel)
        if t is None:
            return None
        try:
            return int(t.strip().split()[0])
        except (ValueError, IndexError):
            raise InputError(f"expected a whole number, found {t.strip()[:40]!r}", file=str(self.path(rel)),
                             field="line 1") from None


def _options(text: str) -> dict[str, str]:
    out = {}
    for part in text.split(","):
        k, _, v = part.partition("=")
        if k:
            out[k] = v
    return out


def _mounts(r: _Root) -> list[Mount]:
    rel = "proc/self/mountinfo"
    text = r.text(rel, required=True)
    assert text is not None
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        f = line.split()
        if "-" not in f or len(f) < 10 or not re.match(r"^\d+:\d+$", f[2]):
            raise InputError(f"not a mountinfo line (ID PARENT MAJ:MIN ROOT MOUNT-POINT OPTIONS ... - TYPE SOURCE "
                             f"SUPER-OPTIONS): {line.strip()[:60]!r}", file=str(r.path(rel)), field=f"line {n}")
        dash = f.index("-")
        if len(f) < dash + 4:
            raise InputError("the mountinfo line ends before the file system type, source and options",
                             file=str(r.path(rel)), field=f"line {n}")
        fstype, source, sopts = f[dash + 1], f[dash + 2], f[dash + 3]
        if fstype not in ("nfs", "nfs4", "cifs", "smb3"):
            continue
        mp = f[4].replace("\\040", " ")
        if fstype in ("nfs", "nfs4"):
            server, _, export = source.partition(":")
        else:
            parts = source.lstrip("/").split("/", 1)
            server, export = parts[0], "/" + (parts[1] if len(parts) > 1 else "")
        opts = _options(f[5])
        opts.update(_options(sopts))
        m = Mount(mp, "cifs" if fstype == "smb3" else fstype, source, server, export, opts, f[2])
        if "file.core.windows.net" in server.lower():
            m.service = "azure-files"
        out.append(m)
    return out


def _cifs_channels(text: str) -> dict[str, int]:
    """SMB channels per share (``\\\\server\\share`` lower-cased) from DebugData: each session
    block (starting at a line with ``Address:``) has 1 + its ``Extra Channels: N``."""
    out: dict[str, int] = {}
    blocks = re.split(r"\n(?=[^\n]*\bAddress:)", text)
    for b in blocks:
        m = re.search(r"Extra Channels:\s*(\d+)", b)
        channels = 1 + (int(m.group(1)) if m else 0)
        for share in re.findall(r"(\\\\[^\s\\]+\\[^\s]+)", b):
            out[share.lower()] = max(out.get(share.lower(), 0), channels)
    return out


#: cloud disks as they report themselves: (vendor or None, model prefix, cloud, network disk),
#: the first that matches wins. Sources: Azure — azure-vm-utils udev rules (``Msft``
#: ``Virtual_Disk`` SCSI, ``MSFT NVMe Accelerator v1.0`` remote NVMe, ``Microsoft NVMe Direct
#: Disk`` local NVMe); Google Cloud — guest-configs disk naming rules and its NVMe docs
#: (``Google`` ``PersistentDisk`` over virtio-scsi, ``EphemeralDisk`` local SSD, ``nvme_card-pd``
#: Persistent Disk or Hyperdisk over NVMe, ``nvme_card`` local SSD); AWS — the EBS NVMe udev
#: rules of amazon-ec2-utils (``Amazon Elastic Block Store``, ``Amazon EC2 NVMe Instance
#: Storage``). Read 2026-11-27.
CLOUD_DISKS = (
    ("Msft", "Virtual Disk", "azure", True),
    (None, "MSFT NVMe Accelerator", "azure", True),
    (None, "Microsoft NVMe Direct Disk", "azure", False),
    ("Google", "PersistentDisk", "gcp", True),
    ("Google", "EphemeralDisk", "gcp", False),
    (None, "nvme_card-pd", "gcp", True),
    (None, "nvme_card", "gcp", False),
    (None, "Amazon Elastic Block Store", "aws", True),
    (None, "Amazon EC2 NVMe Instance Storage", "aws", False),
)


def cloud_disk(vendor: str | None, model: str | None) -> tuple[str | None, bool | None]:
    """(cloud, network) of a disk from its vendor and model (``Virtual_Disk`` as udev
    spells it reads as ``Virtual Disk``); (None, None) for any other disk."""
    if model is None:
        return None, None
    shown = model.replace("_", " ") if vendor == "Msft" else model
    for want_vendor, prefix, cloud, network in CLOUD_DISKS:
        if (want_vendor is None or vendor == want_vendor) and shown.startswith(prefix):
            return cloud, network
    return None, None


def _devices(r: _Root) -> list[Device]:
    base = r.path("sys/block")
    if not base.is_dir():
        return []
    out = []
    for d in sorted(base.iterdir(), key=lambda p: p.name):
        name = d.name
        if re.match(r"^(loop|ram|zram|sr|fd|nbd)\d+$", name):
            continue
        q = f"sys/block/{name}/queue"
        sched = r.text(f"{q}/scheduler")
        current = None
        if sched is not None:
            m = re.search(r"\[([^\]]+)\]", sched)
            current = m.group(1) if m else sched.strip() or None
        rot = r.integer(f"{q}/rotational")
        dev = Device(name, current, r.integer(f"{q}/nr_requests"), r.integer(f"{q}/read_ahead_kb"),
                     r.integer(f"{q}/max_sectors_kb"), None if rot is None else bool(rot))
        vendor, model = r.text(f"sys/block/{name}/device/vendor"), r.text(f"sys/block/{name}/device/model")
        dev.vendor = vendor.strip() or None if vendor else None
        dev.model = model.strip() or None if model else None
        dev.cloud, dev.network = cloud_disk(dev.vendor, dev.model)
        mq = r.path(f"sys/block/{name}/mq")
        dev.hw_queues = sum(1 for p in mq.iterdir() if p.name.isdigit()) or None if mq.is_dir() else None
        slaves = r.path(f"sys/block/{name}/slaves")
        members = sorted(p.name for p in slaves.iterdir()) if slaves.is_dir() else []
        if name.startswith("md"):
            dev.kind = "md"
            lvl = r.text(f"sys/block/{name}/md/level")
            dev.level = lvl.strip() if lvl else None
            chunk = r.integer(f"sys/block/{name}/md/chunk_size")
            dev.chunk_kb = chunk // 1024 if chunk else None
            dev.members = members
        elif name.startswith("dm-"):
            dev.kind = "dm"
            dm = r.text(f"sys/block/{name}/dm/name")
            dev.dm_name = dm.strip() if dm else None
            dev.members = members
            io_min, io_opt = r.integer(f"{q}/minimum_io_size"), r.integer(f"{q}/optimal_io_size")
            if io_min and io_opt and io_opt > io_min and len(members) > 1:
                dev.chunk_kb = io_min // 1024
        out.append(dev)
    return out


def read_system(root: str | Path = "/", *, service: str | None = None) -> System:
    """Read a client's settings under ``root``; ``service`` names the service of NFS/SMB
    mounts whose server does not say (an IP address)."""
    r = _Root(Path(root))
    mounts = _mounts(r)
    hinted = 0
    stats_text = r.text("proc/self/mountstats")
    if stats_text is not None:
        stats = parse_mountstats(list(enumerate(stats_text.splitlines(), 1)), str(r.path("proc/self/mountstats")))
        for m in mounts:
            s = stats.get(m.mount_point)
            if s is not None:
                m.transports = s.xprts
                m.max_slots = s.max_slots
                m.ops = {k: v for k, v in s.ops.items() if k in ("READ", "WRITE")}
    for m in mounts:
        if m.nfs:
            m.read_ahead_kb = r.integer(f"sys/class/bdi/{m.majmin}/read_ahead_kb")
        if service and m.service == "unknown":
            m.service = service
            hinted += 1
    cifs = [m for m in mounts if not m.nfs]
    if cifs:
        dbg = r.text("proc/fs/cifs/DebugData")
        if dbg is not None:
            chans = _cifs_channels(dbg)
            for m in cifs:
                key = "\\\\" + m.server.lower() + m.export.replace("/", "\\").lower()
                m.channels = chans.get(key.rstrip("\\"))
    sunrpc = {k: r.integer(f"proc/sys/sunrpc/{k}") for k in SUNRPC_FILES}
    if sunrpc["tcp_max_slot_table_entries"] is None:
        sunrpc["tcp_max_slot_table_entries"] = r.integer("sys/module/sunrpc/parameters/tcp_max_slot_table_entries")
    kernel = r.text("proc/sys/kernel/osrelease")
    return System(str(root), kernel.strip() if kernel else None, mounts, _devices(r), sunrpc,
                  r.integer("sys/module/nfs/parameters/max_session_slots"), hinted)
