"""What the fio options iolab accepts but does not model do to a job's IO, when they change it.

Most options iolab does not model (logs, verify patterns, CPU pinning, an engine's
credentials...) leave the IO a job issues as it is, and are only listed as not modelled.
Those below change it — how fast the job issues IO, which IO it issues, or where — so the
prediction, made for the job without them, can be far off; :func:`effects` names each one a
job sets to a value that has an effect, with what it does.
"""

from __future__ import annotations

import msgspec

from .job import FioJob

__all__ = ["Effect", "PACE", "effects"]

#: options that change a job's pace, with what they do
PACE = {
    "thinktime_iotime": "stalls after a stretch of time rather than after thinktime_blocks IOs",
    "flow": "throttles jobs against each other",
    "startdelay": "starts jobs later than the others",
    "latency_target": "lets fio lower the queue depth until the latency target holds",
    "fsync": "adds a flush every so many writes",
    "fdatasync": "adds a data flush every so many writes",
    "sync": "makes writes synchronous (O_SYNC)",
}


class Effect(msgspec.Struct, frozen=True):
    """One unmodelled option of a job that changes its IO: the option, its value as written
    (``write:112k`` for an offset modifier of ``rw``) and what it does."""

    option: str
    value: str
    what: str


def _off(text: str) -> bool:
    """True when an option's value changes nothing: 0 (or none) for each of its items."""
    return all(p.strip().lower() in ("0", "none", "") for p in text.split(","))


def _percent(text: str) -> list[int]:
    """The whole percentages of a ``read,write,trim`` list (items that are not whole numbers
    are left out: fio refuses them)."""
    return [int(p) for p in (p.strip() for p in text.split(",")) if p.isdigit()]


def effects(job: FioJob) -> list[Effect]:
    """The options of `job` that iolab does not model and that change the IO it issues."""
    found: list[Effect] = []
    ignored = set(job.ignored)
    for opt, what in PACE.items():
        text = str(job.options.get(opt, "0")).strip()
        if opt in ignored and not (_off(text) and (text or opt != "sync")):
            found.append(Effect(opt, text, what))
    verify = str(job.options.get("verify", "")).strip()
    if job.writes and verify and not _off(verify) and job.options.get("do_verify", "1").strip() != "0":
        found.append(Effect("verify", verify, "reads back every block the job writes to check it"))
    modifier = next((o[3:] for o in job.ignored if o.startswith("rw:")), None)
    if modifier:
        mode = f"{job.rw}:{modifier}"
        if job.random:
            again = "at the same offset" if job.options.get("rw_sequencer", "").strip() == "identical" else "in a row"
            found.append(Effect("rw", mode, f"issues {modifier} IOs {again} before each new random offset"))
        elif modifier.startswith("-"):
            found.append(Effect("rw", mode, f"steps back {modifier[1:]} after each IO, so the IOs run backwards "
                                            "rather than forwards in one run"))
        else:
            found.append(Effect("rw", mode, f"skips {modifier} after each IO, so the IOs are not contiguous"))
    if job.random and job.writes and str(job.options.get("zonemode", "")).strip() == "zbd":
        found.append(Effect("zonemode", "zbd", "writes each zone of a zoned device at its write pointer, so the "
                                               "random writes run sequentially within zones"))
    for opt in ("percentage_random", "percentage_sequential"):
        shares = _percent(str(job.options.get(opt, "")))
        random = [p if opt == "percentage_random" else 100 - p for p in shares]
        if job.random and random and min(random) < 100:
            most = "" if len(set(random)) == 1 else "up to "
            found.append(Effect(opt, job.options[opt].strip(),
                                f"makes {most}{100 - min(random)}% of the IOs sequential rather than random"))
    return found
