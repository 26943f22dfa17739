"""What a stored run ran, in a few words: read back from the job file it stored.

``results list`` and ``results export --csv`` show each run's workload beside its figures
(the job names, fio's ``rw``, ``bs``, ``iodepth`` and ``numjobs``), read from the exact
job file fio ran, so what is shown is what ran — after flags, defaults and sweep points.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError
from ..fio import FioJob, parse_jobfile

__all__ = ["Workload", "workload_of", "job_workload"]


@dataclass(frozen=True)
class Workload:
    """One run's (or one job's) workload as text; a value the jobs differ in is joined with
    ``/`` (``randread/write``); block sizes as fio writes them (``4k``, ``8k,64k`` for reads
    and writes); ``-`` when the job file cannot be read."""

    name: str
    rw: str
    bs: str
    iodepth: str
    numjobs: str

    @property
    def depth(self) -> str:
        """``iodepth×numjobs`` (``32×4``)."""
        return f"{self.iodepth}×{self.numjobs}"

    def to_json(self) -> dict[str, str | int]:
        """As text, but ``iodepth`` and ``numjobs`` as whole numbers where the jobs agree."""
        def number(text: str) -> str | int:
            return int(text) if text.isdigit() else text

        return {"name": self.name, "rw": self.rw, "bs": self.bs, "iodepth": number(self.iodepth),
                "numjobs": number(self.numjobs)}


UNKNOWN = Workload("-", "-", "-", "-", "-")


def fio_size(n: int) -> str:
    """A block size as fio's job files write it: ``4k``, ``1m``, ``4000``."""
    for unit, scale in (("g", 2**30), ("m", 2**20), ("k", 2**10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale}{unit}"
    return str(n)


def _bs(job: FioJob) -> str:
    reads = fio_size(job.bs)
    if job.bs_write is not None and job.bs_write != job.bs and job.rw not in ("read", "randread"):
        return f"{reads},{fio_size(job.bs_write)}"
    return reads


def _joined(values: list[str]) -> str:
    seen: list[str] = []
    for v in values:
        if v not in seen:
            seen.append(v)
    return "/".join(seen)


def _of(jobs: list[FioJob]) -> Workload:
    if not jobs:
        return UNKNOWN
    return Workload(_joined([j.name for j in jobs]), _joined([j.rw for j in jobs]), _joined([_bs(j) for j in jobs]),
                    _joined([str(j.iodepth) for j in jobs]), _joined([str(j.numjobs) for j in jobs]))


def _jobs(jobfile: str) -> list[FioJob]:
    try:
        return list(parse_jobfile(jobfile, source="stored job file"))
    except InputError:
        return []


def workload_of(jobfile: str) -> Workload:
    """The workload of a whole run from its stored job file."""
    return _of(_jobs(jobfile))


def job_workload(jobfile: str) -> dict[str, Workload]:
    """Each job's workload by job name (jobs of one name together)."""
    by_name: dict[str, list[FioJob]] = {}
    for job in _jobs(jobfile):
        by_name.setdefault(job.name, []).append(job)
    return {name: _of(jobs) for name, jobs in by_name.items()}
