"""The rules: each compares one setting with what a service's published guidance says,
gives the command or config line that changes it, and where the model covers the setting
the predicted figures before and after.

Sources (MicrosoftDocs/azure-docs = AD; the date is the page's ms.date):

* ANF nconnect and rsize/wsize: AD articles/azure-netapp-files/performance-linux-mount-options.md
  (2024-03-07): up to 16 connections, 8 performed best; rsize/wsize 256 KiB or less.
* ANF slots: AD articles/azure-netapp-files/performance-linux-concurrency-session-slots.md
  (2021-08-02): NFSv3 128 requests per connection (Linux default 65,536); NFSv4.1 180
  session slots (Linux default 64).
* ANF read-ahead: AD articles/azure-netapp-files/performance-linux-nfs-read-ahead.md
  (2022-02-02): 15,360 KiB best in testing; newer kernels default to 128 KiB.
* Azure Files NFS: AD articles/storage/files/nfs-performance.md (2023-09-26): nconnect 4
  (more adds nothing and may hurt); read-ahead 15 MiB through a udev rule.
* NetApp Volumes: docs.cloud.google.com netapp-volumes linux-nfs-concurrency and
  linux-nfs-mount-options: 128 slots per TCP connection, max_session_slots 180, nconnect up
  to 16 (16 gave 5× the throughput of one connection).
* SMB multichannel: Azure Files allows at most 4 channels; Linux mounts ask for them with
  ``multichannel,max_channels=N`` (kernel 5.8+; linux fs/cifs, 2020-06-02).
* Managed disks: AD articles/virtual-machines/linux/optimization.md (2016-09-06): noop
  (blk-mq ``none``) or deadline scheduler on SSD-backed disks; AD
  articles/virtual-machines/premium-storage-performance.md (2021-06-29): stripe unit 64 KiB
  for OLTP, 256 KiB for data warehousing; 8–16 or more IOs in flight per disk.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .predicted import before_after, default_scenario
from .probe import Mount, System

__all__ = ["Finding", "diagnose", "SOURCES", "NCONNECT"]

SOURCES = {
    "anf-mount": "MicrosoftDocs/azure-docs articles/azure-netapp-files/performance-linux-mount-options.md (2024-03-07)",
    "anf-slots": "MicrosoftDocs/azure-docs articles/azure-netapp-files/performance-linux-concurrency-session-slots.md "
                 "(2021-08-02)",
    "anf-readahead": "MicrosoftDocs/azure-docs articles/azure-netapp-files/performance-linux-nfs-read-ahead.md "
                     "(2022-02-02)",
    "files-nfs": "MicrosoftDocs/azure-docs articles/storage/files/nfs-performance.md (2023-09-26)",
    "gcnv-slots": "docs.cloud.google.com/netapp/volumes/docs/performance/linux-nfs-concurrency",
    "gcnv-mount": "docs.cloud.google.com/netapp/volumes/docs/performance/linux-nfs-mount-options",
    "smb-multichannel": "Azure Files SMB Multichannel: at most 4 channels (MicrosoftDocs/azure-docs "
                        "articles/storage/files); Linux cifs mount options multichannel, max_channels (kernel 5.8+)",
    "nfs-queue": "nfs-utils tools/nfs-iostat/nfs-iostat.py: per-operation queue, RTT and execute times from "
                 "/proc/self/mountstats (avg queue: time a request waits in the client before it is sent)",
    "disk-scheduler": "MicrosoftDocs/azure-docs articles/virtual-machines/linux/optimization.md (2016-09-06)",
    "premium-storage": "MicrosoftDocs/azure-docs articles/virtual-machines/premium-storage-performance.md (2021-06-29)",
}

#: the nconnect each service's guide recommends, and its source
NCONNECT = {"anf": (8, "anf-mount"), "azure-files": (4, "files-nfs"), "gcnv": (16, "gcnv-mount")}
READ_AHEAD_KB = {"anf": (15360, "anf-readahead"), "azure-files": (15360, "files-nfs")}
SLOTS_SOURCE = {"anf": "anf-slots", "gcnv": "gcnv-slots"}


@dataclass
class Finding:
    id: str
    severity: str              # info | warn | fix
    target: str
    setting: str
    now: Any
    recommended: Any
    how: str
    source: str
    why: str
    predicted: dict | None = None

    def to_json(self) -> dict:
        return {"id": self.id, "severity": self.severity, "target": self.target, "setting": self.setting,
                "now": self.now, "recommended": self.recommended, "how": self.how, "source": SOURCES[self.source],
                "why": self.why, "predicted": self.predicted}


class _Context:
    """The scenario to predict with: the user's, or a default workload per mount."""

    def __init__(self, scenario: dict | None, file: str, base: Path, system: System):
        self.scenario, self.file, self.base, self.system = scenario, file, base, system

    def predict(self, m: Mount, field: str, before: Any, after: Any, workload: str) -> dict | None:
        if self.scenario is not None:
            data, file = self.scenario, self.file
        else:
            nconnect = m.nconnect if m.nfs else (m.channels or 1)
            data = default_scenario(m.service, m.protocol, workload, nconnect=nconnect,
                                    session_slots=self.system.max_session_slots)
            file = "default workload"
        if field == "session_slots" and m.protocol != "nfs4.1":
            return None
        res = before_after(data, file, self.base, field, before, after, smb=not m.nfs)
        if res is not None:
            res["workload"] = "scenario " + self.file if self.scenario is not None else \
                f"default: {_describe(data)}"
        return res


def _describe(d: dict) -> str:
    j = d["jobs"][0]
    v = d["volumes"]["share"]
    return (f"{j['bs']} {j['rw']}, {j['numjobs']} jobs × iodepth {j['iodepth']}, {v['service']} {v['level']} "
            f"{v['size']} over {v['protocol']} from {d['clients'].get('vm') or str(d['clients']['cpus']) + '-vCPU client'}")


def _fstab(m: Mount, change: dict[str, str]) -> str:
    opts = dict(m.options)
    for k in ("addr", "clientaddr", "local_lock", "namlen", "mountaddr", "mountvers", "mountport", "mountproto"):
        opts.pop(k, None)
    opts.update(change)
    text = ",".join(k if v == "" else f"{k}={v}" for k, v in opts.items())
    return f"{m.source} {m.mount_point} {m.fstype} {text} 0 0"


def _nfs_rules(m: Mount, s: System, ctx: _Context) -> list[Finding]:
    out: list[Finding] = []
    svc = m.service if m.service != "unknown" else "anf"
    guess = "" if m.service != "unknown" else " (service unknown: Azure NetApp Files' guidance applied; give --service)"
    sev = "fix" if m.service != "unknown" else "warn"
    # nconnect
    want, src = NCONNECT[svc]
    now = m.transports or m.nconnect
    if now != want and not (svc == "gcnv" and now >= 8):
        old_kernel = s.kernel_at_least(5, 3) is False
        why = (f"{now} TCP connection(s) carry every IO of this mount; the guide recommends "
               f"nconnect={want}{guess}." if now < want else
               f"nconnect={now} is above the {want} the guide recommends: more connections add nothing and may "
               f"hurt through TCP saturation{guess}.")
        if old_kernel:
            why += (f" nconnect needs Linux 5.3 or later, or a distribution that carries it back (ANF names RHEL 8.3, "
                    f"SLES 12 SP4, Ubuntu 18.04); this kernel is {s.kernel}.")
        if m.transports and m.transports != m.nconnect:
            why += (f" The mount asks for nconnect={m.nconnect} but has {m.transports} transport(s): an earlier mount "
                    f"of {m.server} set the count.")
        out.append(Finding(
            "nfs-nconnect", sev if now < want else "warn", m.mount_point, "nconnect", now, want,
            f"unmount every mount of {m.server} (the first mount sets nconnect for the others), then mount with "
            f"nconnect={want}; /etc/fstab: {_fstab(m, {'nconnect': str(want)})}", src, why,
            ctx.predict(m, "nconnect", now, want, "throughput")))
    # rsize / wsize (ANF)
    if svc == "anf":
        for opt in ("rsize", "wsize"):
            v = m.options.get(opt)
            if v and v.isdigit() and int(v) != 262144:
                out.append(Finding(
                    f"nfs-{opt}", "warn", m.mount_point, opt, int(v), 262144,
                    f"remount with {opt}=262144; /etc/fstab: {_fstab(m, {opt: '262144'})}", "anf-mount",
                    f"Azure NetApp Files recommends {opt} of 256 KiB or less (now {int(v) // 1024} KiB){guess}."))
    # read-ahead
    if svc in READ_AHEAD_KB and m.read_ahead_kb is not None:
        want_ra, src = READ_AHEAD_KB[svc]
        if m.read_ahead_kb < want_ra:
            out.append(Finding(
                "nfs-read-ahead", sev, m.mount_point, "read_ahead_kb", m.read_ahead_kb, want_ra,
                f"now: echo {want_ra} > /sys/class/bdi/{m.majmin}/read_ahead_kb; at every mount: "
                f"/etc/udev/rules.d/99-nfs.rules: SUBSYSTEM==\"bdi\", ACTION==\"add\", PROGRAM=\"/usr/bin/awk -v "
                f"bdi=$kernel 'BEGIN{{ret=1}} {{if ($4 == bdi) {{ret=0}}}} END{{exit ret}}' /proc/fs/nfsfs/volumes\", "
                f"ATTR{{read_ahead_kb}}=\"{want_ra}\" then udevadm control --reload", src,
                f"Sequential reads fetch only {m.read_ahead_kb} KiB ahead (Linux 5.4, RHEL 8.3 and Ubuntu 18.04 "
                "on default to 128 KiB); "
                f"the guide found {want_ra} KiB best{guess}. The model does not cover read-ahead: no prediction."))
    # slots
    if svc in SLOTS_SOURCE and m.protocol == "nfs3":
        cur = s.sunrpc.get("tcp_max_slot_table_entries")
        if cur is not None and cur > 128:
            out.append(Finding(
                "sunrpc-slot-table", sev, m.mount_point, "sunrpc.tcp_max_slot_table_entries", cur, 128,
                "echo 'options sunrpc tcp_max_slot_table_entries=128' > /etc/modprobe.d/sunrpc.conf (then reboot); "
                "now: sysctl -w sunrpc.tcp_max_slot_table_entries=128", SLOTS_SOURCE[svc],
                f"The client may keep {cur:,} requests in flight per connection; the server takes 128 and holds "
                f"back the rest, which shows as latency{guess}. The model already counts 128 server slots per "
                "connection: no prediction."))
    if svc in SLOTS_SOURCE and m.protocol == "nfs4.1":
        cur = s.max_session_slots
        if cur is not None and cur < 180:
            out.append(Finding(
                "nfs-session-slots", sev, m.mount_point, "nfs.max_session_slots", cur, 180,
                "echo 'options nfs max_session_slots=180' > /etc/modprobe.d/nfsclient.conf, then reboot (the "
                "module reads it when it loads)", SLOTS_SOURCE[svc],
                f"One NFSv4.1 session holds at most {cur} requests in flight whatever nconnect is; the server "
                f"offers 180{guess}.", ctx.predict(m, "session_slots", cur, 180, "concurrency")))
    out.extend(_queue_rule(m, svc, want))
    return out


QUEUE_MIN_OPS = 1000
"""Operations a mount must have done before its client-side queueing is judged."""


def _queue_rule(m: Mount, svc: str, nconnect: int) -> list[Finding]:
    """Requests that wait in the client longer than a quarter of their round trip: the
    connections or slots, not the service, hold them back."""
    for op in ("READ", "WRITE"):
        v = m.ops.get(op)
        if not v or v[0] < QUEUE_MIN_OPS:
            continue
        queue, rtt = v[5] / v[0], v[6] / v[0]
        if queue >= 0.1 and queue >= 0.25 * rtt:
            fix = (f"raise nconnect to {nconnect}" if m.nconnect < nconnect else "add connections") + \
                (" and nfs.max_session_slots to 180" if m.protocol == "nfs4.1" else
                 " and keep sunrpc.tcp_max_slot_table_entries at 128")
            return [Finding(
                "nfs-client-queue", "warn", m.mount_point, f"{op} time queued in the client",
                f"{queue:.3g} ms per {op} (round trip {rtt:.3g} ms)", "well under the round trip",
                f"{fix}; then compare nfsiostat's avg queue (ms) with avg RTT (ms) again", "nfs-queue",
                f"Since the mount, each {op} waited {queue:.3g} ms in the client before it was sent — "
                f"{queue / rtt:.0%} of its {rtt:.3g} ms round trip: too few connections or slots hold requests "
                "back.")]
    return []


def _smb_rules(m: Mount, s: System, ctx: _Context) -> list[Finding]:
    now = m.channels
    if now is None:
        mc = "multichannel" in m.options
        now = int(m.options.get("max_channels", "2" if mc else "1")) if m.options.get("max_channels", "1").isdigit() \
            else 1
    if now >= 4:
        return []
    old = s.kernel_at_least(5, 8) is False
    why = (f"{now} SMB channel(s) carry this share's IO; Azure Files allows 4." +
           (f" Multichannel on Linux needs kernel 5.8 or later (this kernel: {s.kernel})." if old else ""))
    return [Finding("smb-multichannel", "fix" if m.service == "azure-files" else "warn", m.mount_point,
                    "SMB channels", now, 4,
                    f"mount with multichannel,max_channels=4; /etc/fstab: "
                    f"{_fstab(m, {'multichannel': '', 'max_channels': '4'})}", "smb-multichannel", why,
                    ctx.predict(m, "nconnect", now, 4, "throughput"))]


def _block_rules(s: System, bs: int | None) -> list[Finding]:
    out: list[Finding] = []
    for d in s.devices:
        if d.kind == "disk" and d.scheduler in ("cfq", "bfq") and d.rotational is not True:
            out.append(Finding(
                "block-scheduler", "warn", d.name, "queue/scheduler", d.scheduler, "none",
                f"now: echo none > /sys/block/{d.name}/queue/scheduler; at boot: /etc/udev/rules.d/60-scheduler.rules: "
                f"ACTION==\"add|change\", KERNEL==\"{d.name}\", ATTR{{queue/scheduler}}=\"none\"", "disk-scheduler",
                f"{d.scheduler} reorders IO for spinning disks; on SSD-backed disks Azure recommends noop (blk-mq "
                "none) or deadline. The model does not cover the scheduler: no prediction."))
        if d.kind == "disk" and d.nr_requests is not None and d.nr_requests < 16:
            out.append(Finding(
                "block-queue-depth", "warn", d.name, "queue/nr_requests", d.nr_requests, 64,
                f"echo 64 > /sys/block/{d.name}/queue/nr_requests (udev: ATTR{{queue/nr_requests}}=\"64\")",
                "premium-storage",
                f"At most {d.nr_requests} requests queue for this disk; premium disks need 8–16 or more in flight "
                "each to reach their limits."))
        if d.kind in ("md", "dm") and len(d.members) > 1 and d.chunk_kb:
            want = 256 if (bs or 0) >= 256 * 1024 else 64
            if d.chunk_kb != want:
                kind = "data warehousing (IO of 256 KiB or more)" if want == 256 else "OLTP (small IO)"
                how = (f"rebuild the array: mdadm --create /dev/{d.name} --level=0 --chunk={want} "
                       f"--raid-devices={len(d.members)} ..." if d.kind == "md" else
                       f"recreate the volume: lvcreate -i {len(d.members)} -I {want}k ...")
                out.append(Finding(
                    "stripe-size", "info", d.name, "stripe unit", f"{d.chunk_kb} KiB × {len(d.members)} members",
                    f"{want} KiB", how, "premium-storage",
                    f"Azure's guide stripes at {want} KiB for {kind}; an IO larger than the stripe unit spans disks. "
                    "The data must be copied off and back: weigh it against the gain."))
    return out


def diagnose(s: System, scenario: dict | None = None, scenario_file: str = "scenario",
             base: Path = Path(".")) -> list[Finding]:
    """Every finding for the system, NFS/SMB mounts first, then block devices."""
    ctx = _Context(scenario, scenario_file, base, s)
    out: list[Finding] = []
    for m in s.mounts:
        out.extend(_nfs_rules(m, s, ctx) if m.nfs else _smb_rules(m, s, ctx))
    out.extend(_block_rules(s, _scenario_bs(scenario)))
    return out


def _scenario_bs(scenario: dict | None) -> int | None:
    if not scenario:
        return None
    from ..units import parse_size

    for j in scenario.get("jobs") or []:
        if isinstance(j, dict) and "bs" in j:
            try:
                return parse_size(str(j["bs"]).split(",")[0])
            except Exception:
                return None
    return None
