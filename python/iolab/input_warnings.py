"""Silent traps: input that is valid but almost surely not what its writer meant. Each
becomes a warning (the input is still used as written), printed as
``warning: FILE: FIELD: message`` on stderr and listed under ``warnings`` in JSON.

- ``iodepth`` above 1 with a synchronous ioengine (fio's default ``psync``): fio keeps one
  IO in flight per job whatever the depth, and so does the model.
- ``4KiB`` in fio options: fio's default ``kb_base=1024`` reads the IEC forms (KiB, MiB,
  ...) as powers of 1000, so ``bs=4KiB`` is 4,000 bytes (``4k`` is 4,096).
- A latency given as a bare number (``latency: 2``): read as seconds.
- A fio option that changes how fast a job issues IO (``thinktime_iotime``, ``flow``,
  ``startdelay``, ``latency_target``, ``fsync``, ``fdatasync``, ``sync``) or which IO it
  issues (``verify`` on a job that writes, an offset modifier such as ``rw=write:112k``,
  ``percentage_random``, ``zonemode=zbd``) but that the model does not take: the prediction is for the job
  without it (:mod:`iolab.fio.effects`).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import msgspec

__all__ = ["Trap", "job_traps", "file_traps", "flag_traps", "jobfile_traps", "traps_of", "unique",
           "rates_unknown"]


class Trap(msgspec.Struct, frozen=True):
    """One warning: where (file, field) and what."""

    message: str
    file: str | None = None
    field: str | None = None

    def __str__(self) -> str:
        where = ": ".join(p for p in (self.file, self.field) if p)
        return f"{where}: {self.message}" if where else self.message

    def to_json(self) -> dict:
        return {"file": self.file, "field": self.field, "message": self.message}


_IEC = re.compile(r"^(\d+)\s*([kmgtp])ib$", re.IGNORECASE)
_SIZE_OPTIONS = {"bs", "blocksize", "bsrange", "blocksize_range", "size", "filesize", "io_size", "io_limit",
                 "offset", "offset_increment", "rate", "rate_min", "ba", "blockalign", "number_ios"}


def _iec_pieces(text: str) -> Iterator[tuple[str, int, int]]:
    """(piece, bytes to fio, bytes meant) for each KiB-style piece of an option value."""
    for piece in re.split(r"[-,:/]", text):
        m = _IEC.match(piece.strip())
        if m:
            power = "kmgtp".index(m.group(2).lower()) + 1
            n = int(m.group(1))
            yield piece.strip(), n * 1000**power, n * 1024**power


def _kb_base_trap(option: str, text: str, *, file: str | None, field: str) -> list[Trap]:
    out = []
    for piece, fio_bytes, meant in _iec_pieces(text):
        short = piece.rstrip("bB").rstrip("iI").lower()
        out.append(Trap(f"{option}={piece} is {fio_bytes:,} bytes to fio, not {meant:,}: fio's default "
                        f"kb_base=1024 reads KiB, MiB, ... as powers of 1000; write {short} for {meant:,} bytes",
                        file, field))
    return out


def _cmdline_sections(text: str) -> list[tuple[str, list[tuple[str, str, int]]]]:
    """A fio command line's options as job-file sections: those before the first ``--name``
    are ``global``, each ``--name`` starts a job."""
    from .fio.options import canonical, is_job_option

    sections: list[tuple[str, list[tuple[str, str, int]]]] = [("global", [])]
    for w in shlex.split(text):
        k, _, v = w[2:].partition("=") if w.startswith("--") else ("", "", "")
        if k == "name":
            sections.append((v or "?", []))
        elif k and is_job_option(k):
            sections[-1][1].append((canonical(k), v, 0))
    return sections


def _size_traps(sections: list, *, file: str | None, field: Any) -> list[Trap]:
    """kb_base warnings for the size options each job runs with (a global option every job
    overrides is not warned about), once per place written; `field(section, option)` names
    that place. A job that sets kb_base, or inherits it, is left alone."""
    from .fio.jobfile import effective_options

    out: list[Trap] = []
    seen: set[tuple[str, str]] = set()
    for _, options in effective_options(sections):
        if "kb_base" in options:
            continue
        for name, (value, section, _) in options.items():
            if name in _SIZE_OPTIONS and (section, name) not in seen:
                seen.add((section, name))
                out.extend(_kb_base_trap(name, value, file=file, field=field(section, name)))
    return out


def _entry_traps(entry: Any, i: int, *, file: str | None, base: Path) -> list[Trap]:
    """kb_base warnings of one raw job entry: a mapping of fio options, ``{fio: ...}`` (named
    ``jobs[i].fio``) or ``{fio_file: ...}`` (named in the job file: ``[section].bs``)."""
    from .errors import InputError

    if not isinstance(entry, dict):
        return []
    try:
        if isinstance(entry.get("fio"), str):
            return _size_traps(_cmdline_sections(entry["fio"]), file=file, field=lambda s, k: f"jobs[{i}].fio")
        if isinstance(entry.get("fio_file"), str):
            path = base / entry["fio_file"]
            return _jobfile_size_traps(path.read_text(), str(path))
    except (OSError, UnicodeDecodeError, ValueError, InputError):
        return []  # the file's own errors are reported where it is read
    pairs = [(str(k), str(v), 0) for k, v in entry.items() if isinstance(v, (str, int))]
    return _size_traps([(str(entry.get("name", "job")), pairs)], file=file, field=lambda s, k: f"jobs[{i}].{k}")


def _jobfile_size_traps(text: str, path: str) -> list[Trap]:
    from .fio.jobfile import jobfile_sections

    return _size_traps(jobfile_sections(text, source=path), file=path, field=lambda s, k: f"[{s}].{k}")


def job_traps(jobs: Iterable[Any], raw_jobs: Any, *, file: str | None, base: Path) -> list[Trap]:
    """Warnings about a file's jobs: `jobs` are the parsed ones (each with ``fio`` and
    ``field``), `raw_jobs` the ``jobs:`` list as written (for the units it used)."""
    out: list[Trap] = []
    for i, entry in enumerate(raw_jobs if isinstance(raw_jobs, list) else []):
        out.extend(_entry_traps(entry, i, file=file, base=base))
    for j in jobs:
        trap = _sync_depth_trap(j.fio, file=file, field=f"{j.field}.iodepth")
        if trap:
            out.append(trap)
    fields = {id(j.fio): j.field for j in jobs}
    return out + _pace_traps((j.fio for j in jobs), file=file, field=lambda f, opt: f"{fields[id(f)]}.{opt}")


def _few(items: list[str]) -> str:
    return ", ".join(items[:3]) + (", ..." if len(items) > 3 else "")


def _pace_traps(fios: Iterable[Any], *, file: str | None, field: Any) -> list[Trap]:
    """One warning per unmodelled option that changes a job's IO (and field), naming its
    values and the jobs that have it; `field(job, option)` says where."""
    from .fio.effects import effects

    found: dict[tuple[str, str | None, str], dict[str, list[str]]] = {}
    for f in fios:
        for e in effects(f):
            found.setdefault((e.option, field(f, e.option), e.what), {}).setdefault(e.value, []).append(f.name)
    out = []
    for (opt, where, what), values in found.items():
        names = [n for ns in values.values() for n in ns]
        jobs = f"job {names[0]}" if len(names) == 1 else f"{len(names)} jobs ({_few(names)})"
        given = f"{opt}={_few(list(values))}" if any(values) else opt
        out.append(Trap(f"{jobs}: {given} {what}, which iolab does not model: the prediction is "
                        f"for the job{'s' if len(names) > 1 else ''} without it", file, where))
    return out


def _sync_depth_trap(f: Any, *, file: str | None, field: str) -> Trap | None:
    if not (f.iodepth > 1 and f.synchronous):
        return None
    per = "each of its jobs keeps" if f.numjobs > 1 else "it keeps"
    default = " (fio's default)" if f.ioengine == "psync" else ""
    return Trap(f"job {f.name}: iodepth={f.iodepth} has no effect with the synchronous ioengine {f.ioengine}"
                f"{default}: {per} one IO in flight, and so does the prediction; for {f.iodepth} in flight use an "
                "asynchronous engine: ioengine=libaio (iolab bench run: --ioengine libaio)", file, field)


def jobfile_traps(path: Path, jobs: Iterable[Any] = ()) -> list[Trap]:
    """Warnings about a fio job file: its sizes (``bs=4KiB``) unless it sets ``kb_base``, and
    the parsed `jobs` (fio jobs) whose iodepth a synchronous engine ignores."""
    from .errors import InputError

    try:
        out = _jobfile_size_traps(path.read_text(), str(path))
    except (OSError, UnicodeDecodeError, InputError):
        out = []  # the file's own errors are reported where it is read
    jobs = list(jobs)
    for f in jobs:
        trap = _sync_depth_trap(f, file=str(path), field=f"[{f.name}].iodepth")
        if trap:
            out.append(trap)
    return out + _pace_traps(jobs, file=str(path), field=lambda f, opt: opt)


def unique(traps: Iterable[Trap]) -> list[Trap]:
    """Each message once (a flag and a file can point at the same trap)."""
    seen: set[str] = set()
    return [t for t in traps if not (t.message in seen or seen.add(t.message))]  # type: ignore[func-returns-value]


def flag_traps(flags: dict[str, Any], fio_jobs: Iterable[Any]) -> list[Trap]:
    """Warnings about ``iolab bench run``'s fio-style flags and the jobs they make."""
    out: list[Trap] = []
    for name in ("bs", "size"):
        if isinstance(flags.get(name), str):
            out.extend(_kb_base_trap(name, flags[name], file=None, field=f"--{name}"))
    for f in fio_jobs:
        trap = _sync_depth_trap(f, file=None, field="--iodepth" if flags.get("iodepth") else None)
        if trap:
            out.append(trap)
    return out


def _bare_latencies(data: Any, path: str) -> Iterator[tuple[str, float]]:
    if isinstance(data, dict):
        for k, v in data.items():
            here = f"{path}.{k}" if path else str(k)
            if path == "" and k == "jobs":
                continue  # fio's own options: its own time units
            if "latency" in str(k) and isinstance(v, (int, float)) and not isinstance(v, bool):
                yield here, v
            else:
                yield from _bare_latencies(v, here)
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _bare_latencies(v, f"{path}[{i}]")


def file_traps(data: Any, *, file: str | None) -> list[Trap]:
    """Warnings about a scenario or requirements file's own fields (not its jobs)."""
    return [Trap(f"{v:g} has no unit and is read as {v:g} s; write {v:g}ms if you meant milliseconds "
                 f"(or {v:g}s to keep seconds and silence this)", file, field)
            for field, v in _bare_latencies(data, "")]


def traps_of(loaded: Any, data: Any = None, base: Path | None = None) -> list[Trap]:
    """Every warning about a loaded scenario or requirements file (``file`` and ``jobs``);
    ``data``: its parsed YAML when it was read from text rather than from ``file`` (whose
    relative paths are then read from ``base``)."""
    from .schema import load_yaml

    if data is None:
        data = load_yaml(loaded.file)
    jobs = data.get("jobs") if isinstance(data, dict) else None
    out = file_traps(data, file=loaded.file) + job_traps(loaded.jobs, jobs, file=loaded.file,
                                                         base=base or Path(loaded.file).parent)
    if hasattr(loaded, "require"):  # a requirements file: the plan sets the load itself
        out += [t for part in (loaded, *getattr(loaded, "workloads", ())) for t in _paced_in_plan(part)]
        out += capacity_unknown(loaded)
        out += rates_unknown(loaded)
    return out


def rates_unknown(req: Any) -> list[Trap]:
    """A warning when a requirements file (priced, :meth:`~iolab.plan.Requirements.in_region`)
    is paid for under a reservation or savings plan that no VM row of its cloud has a rate
    for: every configuration is then unpriced, and the warning says where the rates go."""
    catalog = getattr(req, "catalog", None)
    model = (getattr(catalog, "pricing", None) or {}).get("vm")
    if model in (None, "payg") or not catalog.vms:
        return []
    if any((vm.rates_per_hour or {}).get(model) is not None for vm in catalog.vms.values()):
        return []
    from .catalog.cloud import DEFAULT_CLOUD, cloud

    where = cloud(req.cloud or DEFAULT_CLOUD)
    example = next(iter(catalog.vms))
    imported = " or import them (iolab catalog import-prices)" if where.name == "azure" else ""
    return [Trap(f"{model}: no {where.title} VM in the catalog has a {model} rate (rates_per_hour), and the "
                 f"bundled prices hold none (no public source of {where.title} reservation or savings-plan rates "
                 f"per region and size was found), so every configuration is unpriced under it; give the rates in "
                 f"a catalog file{imported}: vms: {{{example}: {{rates_per_hour: {{{model}: ...}}}}}}",
                 req.file, "pricing.model")]


def capacity_unknown(req: Any) -> list[Trap]:
    """A warning for each part of a requirements file (``req`` and its ``workloads``) that
    gives a load but no ``require.capacity``: the plan then sizes storage for the load
    alone, which may hold far less than the data."""
    out = []
    for part in (req, *getattr(req, "workloads", ())):
        need = getattr(part, "require", None)
        if need is not None and need.capacity is None and getattr(part, "pool", None) is None:
            out.append(Trap("no capacity is required: the plan sizes storage for the load alone (the smallest "
                            "disks or share that carry it), which may hold far less than the data; add "
                            "capacity: (the data's size)", part.file,
                            f"workloads.{part.name}.require.capacity" if part.name else "require.capacity"))
    return out


def _paced_in_plan(req: Any) -> list[Trap]:
    """A requirements job that fio would pace (a rate cap, a thinktime): a plan runs the
    workload at the required load, so the pace is not used."""
    out = []
    for j in req.jobs:
        paced = [opt for opt, on in (("rate_iops", j.fio.rate_iops or j.fio.capped_reads or j.fio.capped_writes),
                                     ("thinktime", j.fio.thinktime)) if on]
        for opt in paced:
            given = "rate" if opt == "rate_iops" and "rate_iops" not in j.fio.options else opt
            out.append(Trap(f"job {j.fio.name}: {given} paces the job in fio, but a plan runs the workload at the "
                            "required load (require.iops, require.bandwidth): the pace is not used", req.file,
                            f"{j.field}.{given}"))
    return out
