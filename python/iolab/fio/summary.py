"""What `iolab check` says about a fio job file: its jobs as iolab reads them, and what it
accepts but does not model."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .job import FioJob

__all__ = ["is_jobfile", "summary"]

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


def summary(jobs: Sequence[FioJob], file: str) -> dict[str, Any]:
    """`iolab check --json` for a job file: ``kind``, ``file``, ``jobs`` (each ``name``,
    ``rw``, ``bs``, ``iodepth``, ``numjobs``, ``ioengine``, ``outstanding``, ``storage_io``,
    ``read_fraction`` (the share of reads, 0..1), ``rate_iops`` (the cap on one job's IOs/s
    from fio's ``rate_iops``/``rate``, null when none), ``capped_reads`` / ``capped_writes``
    (the cap on one direction of a mixed job whose other direction runs flat out, null when
    none), ``thinktime`` (seconds, null when none) and ``thinktime_blocks``) and ``ignored`` (options accepted but not modelled, once
    each)."""
    ignored: dict[str, None] = {}
    for job in jobs:
        ignored.update(dict.fromkeys(job.ignored))
    return {
        "kind": "fio job file", "file": file,
        "jobs": [{"name": j.name, "rw": j.rw, "bs": j.bs, "iodepth": j.iodepth, "numjobs": j.numjobs,
                  "ioengine": j.ioengine, "outstanding": j.outstanding, "storage_io": j.storage_io,
                  "read_fraction": j.read_fraction, "rate_iops": j.rate_iops,
                  "capped_reads": j.capped_reads, "capped_writes": j.capped_writes, **thinking(j)}
                 for j in jobs],
        "ignored": list(ignored),
    }
