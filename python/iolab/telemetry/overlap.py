"""Several inputs of one machine: the same device over the same seconds counts once.

Two files that record a device of the same name are compared before their samples are
added up:

* their hosts (iostat's and sar's first line, sadf's ``hostname``, the JSON ``nodename``)
  differ: two machines — each keeps its device, named after its file (``db1.txt:sda``);
* their times overlap and the IO they count there agrees (within 5 %, or less than one
  IO and 4 KiB a second apart): one machine seen twice — an ``iostat`` capture and a
  ``/proc/diskstats`` log of the same seconds — the later file's samples of those seconds
  are left out and the output says so (``source.merged``);
* the same host over the same seconds, but the figures disagree, or the same host and a
  file without times (``iostat`` without ``-t``): iolab cannot tell whether the IO is
  counted twice, and refuses with the reason;
* the same host, times that do not meet: one device over a longer period;
* no host known and figures that disagree: two machines, as above, with a note.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path

from .model import Sample, Trace, bad

__all__ = ["Input", "merge_inputs", "AGREE"]

#: the relative difference under which two counts of the same seconds are the same IO
AGREE = 0.05


@dataclass
class Input:
    """One file's samples with what tells its machine and time apart."""

    path: str
    samples: list[Sample]
    host: str | None
    absolute: bool                      # sample times are dates, not seconds from the file's start


def _by_device(samples: list[Sample]) -> dict[str, list[Sample]]:
    out: dict[str, list[Sample]] = {}
    for s in samples:
        out.setdefault(s.device, []).append(s)
    return out


def _span(samples: list[Sample]) -> tuple[float, float]:
    return min(s.time - s.interval for s in samples), max(s.time for s in samples)


def _within(samples: list[Sample], lo: float, hi: float) -> list[Sample]:
    """The samples whose interval lies inside [lo, hi] (to half an interval)."""
    return [s for s in samples if s.time - s.interval >= lo - s.interval / 2 and s.time <= hi + s.interval / 2]


def _counts(samples: list[Sample]) -> tuple[float, float]:
    return sum(s.iops * s.interval for s in samples), sum(s.bandwidth * s.interval for s in samples)


def _agree(a: tuple[float, float], b: tuple[float, float], seconds: float) -> bool:
    return all(abs(x - y) <= AGREE * max(x, y) + floor * seconds for x, y, floor in zip(a, b, (1.0, 4096.0)))


def _clock(t: float) -> str:
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


def merge_inputs(inputs: list[Input], trace: Trace) -> None:
    """Add every input's samples to ``trace``: a device seen by two files of one machine
    over the same seconds once, devices of two machines under their files' names.
    Raises InputError when two files cannot be told apart."""
    names = [Path(i.path).name for i in inputs]
    prefix: set[tuple[int, str]] = set()           # (input, device) named after its file
    for j, b in enumerate(inputs):
        for i in range(j):
            a = inputs[i]
            shared = sorted({s.device for s in a.samples} & {s.device for s in b.samples})
            if shared:
                _pair(i, a, j, b, shared, names, prefix, trace)
    for k, inp in enumerate(inputs):
        trace.samples.extend(replace(s, device=f"{names[k]}:{s.device}") if (k, s.device) in prefix else s
                             for s in inp.samples)


def _pair(i: int, a: Input, j: int, b: Input, shared: list[str], names: list[str],
          prefix: set[tuple[int, str]], trace: Trace) -> None:
    """Decide whether inputs ``a`` and ``b`` (with devices ``shared``) are one machine."""
    two = {(k, dev) for dev in shared for k in (i, j)}
    same_host = a.host is not None and a.host == b.host
    if a.host is not None and b.host is not None and not same_host:
        prefix.update(two)
        return
    if not (a.absolute and b.absolute):
        if same_host:
            undated = a.path if not a.absolute else b.path
            raise bad(undated, None, f"{a.path} and {b.path} both record {', '.join(shared)} of host {a.host}, "
                      f"and {undated} has no times of its own: iolab cannot tell whether they cover the same "
                      "seconds (the IO would count twice); record with times (iostat -t) or give one file")
        prefix.update(two)
        return
    met: list[tuple[str, float, float, tuple[float, float], tuple[float, float], tuple[float, float]]] = []
    a_by, b_by = _by_device(a.samples), _by_device(b.samples)
    for dev in shared:
        a_dev, b_dev = a_by[dev], b_by[dev]
        (a0, a1), (b0, b1) = _span(a_dev), _span(b_dev)
        lo, hi = max(a0, b0), min(a1, b1)
        if hi - lo >= max(min(s.interval for s in a_dev), min(s.interval for s in b_dev)):
            met.append((dev, lo, hi, (a0, a1), _counts(_within(a_dev, lo, hi)), _counts(_within(b_dev, lo, hi))))
    if not met:                                    # times that do not meet
        if not same_host:
            prefix.update(two)
        return
    differ = [(dev, ca, cb) for dev, lo, hi, _, ca, cb in met if not _agree(ca, cb, hi - lo)]
    lo, hi = min(m[1] for m in met), max(m[2] for m in met)
    if differ:
        dev, ca, cb = differ[0]
        if same_host:
            raise bad(b.path, None, f"{a.path} and {b.path} both record {dev} of host {a.host} from "
                      f"{_clock(lo)} to {_clock(hi)}, but count different IO there ({ca[0]:,.0f} against "
                      f"{cb[0]:,.0f} IOs, {ca[1] / 1e6:,.1f} against {cb[1] / 1e6:,.1f} MB): iolab cannot tell "
                      "which is right, or whether the IO would count twice; give one of them")
        prefix.update(two)
        trace.notes.append(f"{names[i]} and {names[j]} both have {dev} over the same seconds, with different IO "
                           f"({ca[0]:,.0f} against {cb[0]:,.0f} IOs) and no host name to say more: taken as two "
                           "machines")
        return
    who = f" of host {a.host or b.host}" if (a.host or b.host) else ""
    drop: set[int] = set()
    for dev, d_lo, d_hi, (a0, a1), ca, cb in met:
        drop |= set(map(id, _within(b_by[dev], a0, a1)))
        trace.merged.append({"device": dev, "files": [a.path, b.path], "kept": a.path, "start": d_lo, "end": d_hi})
    b.samples = [s for s in b.samples if id(s) not in drop]
    total_a = sum(m[4][0] for m in met)
    total_b = sum(m[5][0] for m in met)
    trace.notes.append(f"{names[i]} and {names[j]} record the same IO{who} ({', '.join(m[0] for m in met)}) from "
                       f"{_clock(lo)} to {_clock(hi)} ({total_a:,.0f} against {total_b:,.0f} IOs): merged, "
                       f"counted once (from {names[i]})")
