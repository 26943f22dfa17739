"""What `iolab check` says about a fio job file: its jobs as iolab reads them, and what it
accepts but does not model."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .job import FioJob

__all__ = ["is_jobfile", "summary", "sizes_text"]

_SECTION = re.compile(r"^\[[^\]]+\]\s*([#;].*)?$")


def is_jobfile(path: Path, text: str) -> bool:
    """True for a fio job file: a ``.fio``/``.ini``/``.job`` name, or (any other name but
    ``.yaml``/``.yml``) text whose first line that is not blank or a comment is a
    ``[section]`` header."""
    suffix = path.suffix.lower()
    if suffix in (".fio", ".ini", ".job"):
        return True
    if suffix in (".yaml", ".yml"):
        return False
    for line in text.splitlines():
        line = line.strip()
        if line and line[0] not in "#;":
            return bool(_SECTION.match(line))
    return False


def thinking(job: FioJob) -> dict[str, Any]:
    """A job's ``thinktime`` (seconds, None when none) and ``thinktime_blocks``."""
    return {"thinktime": job.thinktime, "thinktime_blocks": job.thinktime_blocks}


def think_text(job: dict[str, Any]) -> str:
    """``stalls 1 ms after every 4 IOs`` for a summary's job with a thinktime, else ``""``."""
    from ..units import format_duration

    if not job.get("thinktime"):
        return ""
    n = job["thinktime_blocks"]
    return f"stalls {format_duration(job['thinktime'])} after every {'IO' if n == 1 else f'{n:,} IOs'}"


def sizes_text(job: FioJob) -> str:
    """The IO sizes a job issues, as a person reads them: ``8 KiB``; ``4 KiB reads, 16 KiB
    writes`` (``bs=4k,16k`` on a mixed job; a write-only job shows its write size); a
    ``bssplit`` or ``bsrange`` as written (``bssplit 4k/50:1m/50``), which the model uses
    instead of ``bs``."""
    from ..units import format_block

    for option in ("bssplit", "bsrange"):
        if job.options.get(option):
            return f"{option} {job.options[option]}"
    write = job.bs_write or job.bs
    if job.read_fraction == 0:
        return format_block(write)
    if job.read_fraction < 1 and write != job.bs:
        return f"{format_block(job.bs)} reads, {format_block(write)} writes"
    return format_block(job.bs)


def checked_sizes(jobs: Sequence[FioJob], file: str) -> None:
    """Read each job's ``bssplit``/``bsrange`` as the model does; InputError naming the file
    and ``[job].option`` when the model would refuse it."""
    from .sizes import io_sizes
    from ..errors import InputError

    for job in jobs:
        try:
            io_sizes(job)
        except InputError as e:
            raise e.located(file=file, field=f"[{job.name}]") from None


def summary(jobs: Sequence[FioJob], file: str) -> dict[str, Any]:
    """`iolab check --json` for a job file: ``kind``, ``file``, ``jobs`` (each ``name``,
    ``rw``, ``bs``, ``iodepth``, ``numjobs``, ``ioengine``, ``outstanding``, ``storage_io``,
    ``read_fraction`` (the share of reads, 0..1), ``rate_iops`` (the cap on one job's IOs/s
    from fio's ``rate_iops``/``rate``, null when none), ``capped_reads`` / ``capped_writes``
    (the cap on one direction of a mixed job whose other direction runs flat out, null when
    none), ``thinktime`` (seconds, null when none), ``thinktime_blocks`` and ``sizes``
    (``{"read": [[bytes, share], ...], "write": [...]}``: the IO sizes the model uses, from
    ``bs``, ``bssplit`` or ``bsrange``)) and ``ignored`` (options accepted but not modelled,
    once each)."""
    from .options import MODELLED_OPTIONS
    from .sizes import io_sizes

    ignored: dict[str, None] = {}
    for job in jobs:
        ignored.update(dict.fromkeys(o for o in job.ignored if o not in MODELLED_OPTIONS))
    return {
        "kind": "fio job file", "file": file,
        "jobs": [{"name": j.name, "rw": j.rw, "bs": j.bs, "iodepth": j.iodepth, "numjobs": j.numjobs,
                  "ioengine": j.ioengine, "outstanding": j.outstanding, "storage_io": j.storage_io,
                  "read_fraction": j.read_fraction, "rate_iops": j.rate_iops,
                  "capped_reads": j.capped_reads, "capped_writes": j.capped_writes, **thinking(j),
                  "sizes": {d: [[size, share] for size, share in dist] for d, dist in io_sizes(j).items()}}
                 for j in jobs],
        "ignored": list(ignored),
    }
