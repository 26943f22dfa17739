"""FioJob: one fio job in fio's vocabulary, read from the options of a job file section or a
command line's ``--name`` group, with units already resolved (bytes, seconds, IOs/s).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from types import MappingProxyType

import msgspec
from msgspec.structs import force_setattr, replace

from ..errors import SchemaError, UnitError, nearest
from .options import (
    FLAGS,
    KNOWN,
    MODELLED,
    NON_STORAGE_ENGINES,
    RW_MODES,
    SYNC_ENGINES,
    canonical,
    engine_problem,
    parse_fio_bool,
    parse_fio_int,
    parse_fio_size,
    parse_fio_time,
)

__all__ = ["FioJob", "build_job", "READ_MODES", "WRITE_MODES", "LIMITS"]

READ_MODES = frozenset({"read", "randread", "rw", "randrw"})
_ZONES = re.compile(r"^\d+[zZ]$", re.ASCII)

#: the largest value iolab accepts for each count and size (fio's own ceilings where it has
#: one: at most 4096 jobs; larger values describe no real run and would only make the
#: model's cost explode).
LIMITS: dict[str, int | float] = {
    "bs": 2**31,              # 2 GiB per IO
    "bs_write": 2**31,
    "iodepth": 65536,         # IOs in flight per job
    "numjobs": 4096,          # fio's maximum number of jobs
    "nrfiles": 1_000_000,
    "size": 2**60,            # 1 EiB
    "filesize": 2**60,
    "io_size": 2**60,
    "number_ios": 2**62,
    "loops": 1_000_000,
    "runtime": 366 * 86400.0,  # a year
    "ramp_time": 366 * 86400.0,
    "rate_iops": 1e12,
    "thinktime": 366 * 86400.0,  # a year
}
WRITE_MODES = frozenset({"write", "randwrite", "rw", "randrw", "trimwrite", "randtrimwrite"})


class FioJob(msgspec.Struct, frozen=True):
    """One fio job (before ``numjobs`` cloning) with fio's defaults.

    Units: ``bs``, ``bs_write``, ``size``, ``filesize`` in bytes; ``runtime``, ``ramp_time``
    in seconds; ``rate_iops`` in IOs/s per job (``None``: no cap), the job's whole rate under
    fio's ``rate_iops``/``rate`` caps; ``rate_read_share`` (0..1) the share of reads when a
    mixed job's caps on both directions set its mix instead of ``rwmixread`` (fio then runs
    each direction at its own cap). ``thinktime`` (seconds, ``None``: none) is fio's stall
    after every ``thinktime_blocks`` IOs: fio waits for them to complete, then sleeps, so at
    most ``thinktime_blocks`` IOs are in flight. ``capped_reads`` / ``capped_writes`` (IOs/s
    per job) cap one direction of a mixed job whose other direction is not capped: fio runs
    the capped one at its cap and the other flat out (the mix is settled by the model, see
    :func:`iolab.prediction.settle_mixes`). ``options`` holds every
    option the job was given after merging ``[global]`` (keys are fio's canonical names, so
    ``readwrite`` is keyed ``rw``; values the raw text; a flag given without a value has ``""``). ``ignored`` names the
    options fio knows but iolab does not model, so they can be reported to the user.

    Constructing one directly validates the fields and raises SchemaError on a bad value
    (an unknown ``rw``, ``iodepth < 1``, ...); fio's alias ``readwrite`` becomes ``rw``.
    """

    name: str
    rw: str = "read"
    rwmixread: int = 50
    bs: int = 4096
    bs_write: int | None = None
    iodepth: int = 1
    numjobs: int = 1
    ioengine: str = "psync"
    direct: bool = False
    size: int | None = None
    filesize: int | None = None
    nrfiles: int = 1
    io_size: int | None = None
    number_ios: int | None = None
    loops: int = 1
    runtime: float | None = None
    ramp_time: float | None = None
    time_based: bool = False
    rate_iops: float | None = None
    rate_read_share: float | None = None
    rate_process: str = "linear"
    thinktime: float | None = None
    thinktime_blocks: int = 1
    capped_reads: float | None = None
    capped_writes: float | None = None
    directory: str | None = None
    filename: str | None = None
    stonewall: bool = False
    group_reporting: bool = False
    options: Mapping[str, str] = msgspec.field(default_factory=dict)  # not hashed (see __hash__)
    ignored: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        def bad(what: str, message: str) -> SchemaError:
            return SchemaError(message, file="fio job", field=f"{self.name}.{what}")

        if not isinstance(self.name, str) or not self.name:
            raise SchemaError("a fio job needs a non-empty name", file="fio job", field="name")
        rw = RW_MODES.get(self.rw)
        if rw is None:
            raise bad("rw", f"unknown rw {self.rw!r}; expected one of {', '.join(sorted(set(RW_MODES.values())))}")
        force_setattr(self, "rw", rw)
        for name in ("rwmixread", "bs", "bs_write", "iodepth", "numjobs", "size", "filesize", "nrfiles",
                     "thinktime_blocks", "io_size", "number_ios", "loops"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise bad(name, f"{name} must be a whole number, got {value!r}")
        for name in ("runtime", "ramp_time", "rate_iops", "thinktime", "capped_reads", "capped_writes"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
                raise bad(name, f"{name} must be a number, got {value!r}")
        if not 0 <= self.rwmixread <= 100:
            raise bad("rwmixread", f"rwmixread must be 0..100 (percent), got {self.rwmixread}")
        for name in ("bs", "iodepth", "numjobs", "nrfiles", "thinktime_blocks", "loops"):
            if getattr(self, name) < 1:
                raise bad(name, f"{name} must be at least 1, got {getattr(self, name)}")
        for name in ("bs_write", "size", "filesize", "io_size", "number_ios"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise bad(name, f"{name} must be at least 1 byte, got {value}")
        for name in ("runtime", "ramp_time", "rate_iops", "thinktime", "capped_reads", "capped_writes"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise bad(name, f"{name} must not be negative, got {value}")
        for name, high in LIMITS.items():
            value = getattr(self, name)
            if value is not None and value > high:
                shown = f"{value:g}" if isinstance(value, float) else str(value)
                raise bad(name, f"{name} must be at most {high:g}, got {shown}")
        share = self.rate_read_share
        if share is None and self.rate_iops is not None and self.rw in ("rw", "randrw") \
                and 0 < self.rwmixread < 100:
            share = self.rwmixread / 100.0  # a mixed job's whole cap, split as rwmixread splits it
            force_setattr(self, "rate_read_share", share)
        if share is not None and (isinstance(share, bool) or not isinstance(share, (int, float))
                                  or not 0.0 <= share <= 1.0):
            raise bad("rate_read_share", f"rate_read_share must be a number 0..1, got {share!r}")
        if self.rate_process not in ("linear", "poisson"):
            raise bad("rate_process", f"rate_process must be linear or poisson, got {self.rate_process!r}")
        options = {canonical(str(k)): str(v) for k, v in self.options.items()}
        force_setattr(self, "options", MappingProxyType(options))
        force_setattr(self, "ignored", tuple(self.ignored))

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, name) for name in _HASHED))

    @property
    def storage_io(self) -> bool:
        """False for engines whose IO is not storage IO (``cpuio``, ``net``, ``null``, ``exec``,
        ``filecreate``...): such a job is not predicted as disk IO."""
        return self.ioengine not in NON_STORAGE_ENGINES

    @property
    def synchronous(self) -> bool:
        """True for engines that wait for each IO before the next (psync, sync, mmap, ...)."""
        return self.ioengine in SYNC_ENGINES

    @property
    def depth(self) -> int:
        """IOs one clone keeps in flight: 1 for synchronous engines, else ``iodepth``; with a
        ``thinktime``, never more than ``thinktime_blocks`` (fio stalls after that many)."""
        depth = 1 if self.synchronous else self.iodepth
        return min(depth, self.thinktime_blocks) if self.thinktime else depth

    @property
    def outstanding(self) -> int:
        """IOs in flight when the job runs flat out: numjobs × :attr:`depth`."""
        return self.numjobs * self.depth

    @property
    def think(self) -> float:
        """Seconds each IO slot waits, on average, between an IO's completion and the next
        issue: fio stalls ``thinktime`` once per ``thinktime_blocks`` IOs, which the
        :attr:`depth` slots share (0 without a thinktime)."""
        if not self.thinktime:
            return 0.0
        return self.thinktime * self.depth / self.thinktime_blocks

    @property
    def io_bytes(self) -> int | None:
        """Bytes one clone moves before it stops by itself, as fio counts them: ``io_size``
        (else ``size``, else ``filesize`` × ``nrfiles``) times ``loops``, and no more than
        ``number_ios`` IOs of the job's mean size; None when none of them bounds it (then
        only ``runtime`` does). A time-based job runs for its ``runtime`` whatever this says."""
        per_loop = self.io_size or self.size or (self.filesize or 0) * self.nrfiles
        total = per_loop * self.loops if per_loop else None
        if self.number_ios:
            from .sizes import io_sizes

            means = {d: sum(size * share for size, share in dist) for d, dist in io_sizes(self).items()}
            share = self.read_fraction
            cap = int(self.number_ios * (share * means["read"] + (1 - share) * means["write"]))
            total = cap if total is None else min(total, cap)
        return total

    @property
    def random(self) -> bool:
        """True when the pattern picks random offsets (``randread``, ``randrw``, ...)."""
        return self.rw.startswith("rand")

    @property
    def reads(self) -> bool:
        """True when the pattern issues reads."""
        return self.rw in READ_MODES

    @property
    def writes(self) -> bool:
        """True when the pattern issues writes."""
        return self.rw in WRITE_MODES

    @property
    def read_fraction(self) -> float:
        """Share of IOs that are reads, 0..1 (rwmixread for mixed patterns, unless caps on
        both directions set the mix: ``rate_read_share``)."""
        if self.rw in ("rw", "randrw"):
            if self.rate_read_share is not None:
                return self.rate_read_share
            return self.rwmixread / 100.0
        return 1.0 if self.reads else 0.0

    def replace(self, **changes: object) -> "FioJob":
        """A copy with some fields changed (validated again)."""
        return replace(self, **changes)


#: the fields a job's hash covers: all but ``options`` (a mapping, so unhashable)
_HASHED = tuple(name for name in FioJob.__struct_fields__ if name != "options")


Origin = Callable[[str], tuple[str, str]]


def build_job(name: str, options: Mapping[str, str], *, source: str, origin: Origin) -> FioJob:
    """Read a job's merged options (canonical names, raw values) into a FioJob.

    ``origin(option)`` returns ``(field, note)`` for error messages: the field as
    ``[section].option`` or ``--option``, and a note such as ``" (line 7)"``. Option names
    must already be known to fio (the parsers check that with the line at hand). Values are
    read with fio's rules and the job's ``kb_base``.

    Raises SchemaError naming `source` and the field when a value cannot be read.
    """

    def fail(opt: str, message: str) -> SchemaError:
        where, note = origin(opt)
        return SchemaError(message + note, file=source, field=where)

    def read(opt: str, parse: Callable[[str], object]) -> object:
        try:
            return parse(options[opt])
        except UnitError as e:
            raise fail(opt, e.message) from None

    kb_base = 1024
    if "kb_base" in options:
        kb_base = read("kb_base", lambda t: parse_fio_int(t, 1024))  # type: ignore[assignment]
        if kb_base not in (1000, 1024):
            raise fail("kb_base", f"kb_base must be 1000 or 1024, got {options['kb_base'].strip()!r}")

    def integer(opt: str, low: int, high: int | None = None) -> int:
        value: int = read(opt, lambda t: parse_fio_int(t, kb_base))  # type: ignore[assignment]
        if value < low or (high is not None and value > high):
            span = f"{low}..{high}" if high is not None else f"at least {low}"
            raise fail(opt, f"{opt} must be {span}, got {options[opt].strip()!r}")
        return value

    def flag(opt: str) -> bool:
        text = options[opt].strip()
        return True if text == "" else read(opt, parse_fio_bool)  # type: ignore[return-value]

    job: dict[str, object] = {"name": name}
    ignored: list[str] = []
    order = list(options)
    for opt in order:
        if opt not in MODELLED:
            if opt in KNOWN and opt not in ignored:
                ignored.append(opt)
            continue
        text = options[opt].strip()
        if opt == "rw":
            mode, _, modifier = text.partition(":")
            if mode not in RW_MODES:
                hint = nearest(mode, RW_MODES)
                raise fail(opt, f"unknown rw {mode!r}" + (f"; nearest: {', '.join(hint)}" if hint else ""))
            job["rw"] = RW_MODES[mode]
            if modifier:
                ignored.append(f"rw:{modifier}")
        elif opt in ("iodepth", "numjobs", "nrfiles"):
            job[opt] = integer(opt, 1)
        elif opt in ("rwmixread", "rwmixwrite"):
            pct = integer(opt, 0, 100)
            job["rwmixread"] = pct if opt == "rwmixread" else 100 - pct
        elif opt == "bs":
            sizes = _triple(opt, text, "4096", lambda t: _block_size(t, kb_base), fail)
            if 0 in sizes[:2]:
                raise fail(opt, f"bs must be at least 1 byte, got {text!r}")
            job["_bs"] = sizes
        elif opt == "bs_is_seq_rand":
            job["_seq_rand"] = read(opt, parse_fio_bool)
        elif opt == "rate_iops":
            job["_rate_iops"] = _triple(opt, text, "0", lambda t: parse_fio_int(t, kb_base), fail)
        elif opt == "rate":
            job["_rate"] = _triple(opt, text, "0", lambda t: parse_fio_size(t, kb_base), fail)
        elif opt == "ioengine":
            problem = engine_problem(text)
            if problem:
                raise fail(opt, problem)
            job["ioengine"] = text
            if text in NON_STORAGE_ENGINES:
                ignored.append(f"ioengine={text} (no storage IO: not predicted as disk IO)")
        elif opt in ("direct", "buffered"):
            on = read(opt, parse_fio_bool)
            job["direct"] = on if opt == "direct" else not on
        elif opt in ("size", "filesize", "io_size") and _ZONES.match(text):
            job[opt] = None  # a number of zones (zonemode): its bytes depend on the device
            ignored.append(f"{opt}={text} (zones)")
        elif opt in ("size", "io_size"):
            if text.endswith("%"):
                job[opt] = None
                ignored.append(f"{opt}={text} (a share of the file or device)")
            else:
                job[opt] = _positive(opt, read(opt, lambda t: parse_fio_size(t, kb_base)), fail)
        elif opt == "number_ios":
            job[opt] = integer(opt, 0) or None  # 0: fio's default, no limit
        elif opt == "loops":
            job[opt] = integer(opt, 1)
        elif opt == "filesize":
            job["filesize"] = _positive(opt, _range_mid(opt, text, kb_base, fail), fail)
        elif opt in ("runtime", "ramp_time"):
            job[opt] = read(opt, parse_fio_time)
        elif opt in ("thinktime", "thinktime_spin"):
            job[opt] = read(opt, lambda t: parse_fio_time(t, bare="us"))
        elif opt == "thinktime_blocks":
            job[opt] = integer(opt, 1)
        elif opt == "thinktime_blocks_type":
            if text not in ("complete", "issue"):
                raise fail(opt, f"thinktime_blocks_type must be complete or issue, got {text!r}")
        elif opt == "rate_process":
            if text not in ("linear", "poisson"):
                raise fail(opt, f"rate_process must be linear or poisson, got {text!r}")
            job[opt] = text
        elif opt in ("directory", "filename"):
            if not text:
                raise fail(opt, f"{opt} needs a value")
            job[opt] = text
        elif opt in FLAGS:  # time_based, stonewall, group_reporting
            job[opt] = flag(opt)
        # name, description, kb_base: read above or carry no model meaning
    sizes, seq_rand = job.pop("_bs", None), job.pop("_seq_rand", False)
    if sizes is not None:
        if seq_rand:  # fio reads bs as sequential,random: one size for both directions
            rw = str(job.get("rw", "read"))
            job["bs"], job["bs_write"] = sizes[1] if rw.startswith("rand") else sizes[0], None
        else:
            job["bs"], job["bs_write"] = sizes[0], sizes[1] if sizes[1] != sizes[0] else None
    spin = job.pop("thinktime_spin", None)
    if job.get("thinktime"):
        # fio spins for thinktime_spin, then sleeps what is left of thinktime: the stall
        # lasts the longer of the two
        job["thinktime"] = max(float(job["thinktime"]), float(spin or 0.0))  # type: ignore[arg-type]
    else:
        job.pop("thinktime", None)
        job.pop("thinktime_blocks", None)  # without a thinktime, fio never stalls
    iops_caps, byte_caps = job.pop("_rate_iops", None), job.pop("_rate", None)
    if iops_caps is not None or byte_caps is not None:
        for d, direction in enumerate(("reads", "writes", "trims")):
            if iops_caps and byte_caps and iops_caps[d] and byte_caps[d]:
                raise fail("rate", f"rate and rate_iops both cap the {direction}; fio refuses them together "
                                   "(rate and rate_iops are mutually exclusive): keep one")
        prelim = FioJob(**job, options=dict(options), ignored=tuple(ignored))  # type: ignore[arg-type]
        caps = _direction_caps(prelim, iops_caps or (0, 0, 0), byte_caps or (0, 0, 0))
        job.update(_job_rate(prelim, caps))
    return FioJob(**job, options=dict(options), ignored=tuple(ignored))  # type: ignore[arg-type]


def _direction_caps(job: FioJob, iops: tuple[int, int, int], rates: tuple[int, int, int]
                    ) -> tuple[float | None, float | None, float | None]:
    """IOs/s caps of one job's reads, writes and trims (``None``: not capped): ``rate_iops``
    as given, ``rate`` (bytes/s) over the direction's mean IO size (``bs``, its write size, or
    the mean of a ``bssplit``/``bsrange``)."""
    from .sizes import io_sizes  # sizes.py names FioJob in its signatures

    sizes = io_sizes(job)

    def mean(direction: str) -> float:
        dist = sizes.get(direction) or [(job.bs, 1.0)]
        return sum(size * part for size, part in dist) / sum(part for _, part in dist)

    caps: list[float | None] = []
    for d, direction in enumerate(("read", "write", "write")):
        if iops[d]:
            caps.append(float(iops[d]))
        elif rates[d]:
            caps.append(rates[d] / mean(direction))
        else:
            caps.append(None)
    return caps[0], caps[1], caps[2]


def _job_rate(job: FioJob, caps: tuple[float | None, float | None, float | None]) -> dict[str, float | None]:
    """The job's whole rate cap and, for a mixed job capped in both directions, the read share
    the caps set. fio paces each direction on its own: a mixed job whose reads and writes are
    both capped issues each at its cap (``rate_iops=500,100`` gives 500 reads and 100 writes
    a second whatever ``rwmixread`` says), and a direction left uncapped runs flat out
    whenever the capped one is ahead of its pace."""
    read_cap, write_cap, trim_cap = caps
    share = job.read_fraction
    if job.rw in ("rw", "randrw") and share in (0.0, 1.0):
        return {"rate_iops": read_cap if share else write_cap}
    if job.rw in ("rw", "randrw"):
        if read_cap is not None and write_cap is not None:
            return {"rate_iops": read_cap + write_cap, "rate_read_share": read_cap / (read_cap + write_cap)}
        # only one direction capped: fio issues the other flat out whenever the capped one is
        # ahead of its pace; the model settles the mix (iolab.prediction.settle_mixes)
        return {"rate_iops": None, "capped_reads": read_cap, "capped_writes": write_cap}
    if job.reads:
        return {"rate_iops": read_cap}
    if job.writes:
        return {"rate_iops": write_cap}
    return {"rate_iops": trim_cap}


def _triple(opt: str, text: str, default: str, parse: Callable[[str], int],
            fail: Callable[[str, str], SchemaError]) -> tuple[int, int, int]:
    """fio's ``read[,write[,trim]]`` list: an empty item takes the default, and the last item
    given (when not followed by a comma) applies to the types after it."""
    parts = text.split(",")
    if len(parts) > 3:
        raise fail(opt, f"{opt} takes at most three comma-separated values (read,write,trim), got {text!r}")
    values: list[int] = []
    for i in range(3):
        if i < len(parts):
            item = parts[i].strip() or default
        else:
            values.append(values[-1])
            continue
        try:
            values.append(parse(item))
        except UnitError as e:
            raise fail(opt, e.message) from None
    return values[0], values[1], values[2]


_RANGE = re.compile(r"^\s*(\w+)\s*[-:]\s*(\w+)\s*$", re.ASCII)


def _block_size(text: str, kb_base: int) -> int:
    """One ``bs`` item; a range ``4k-16k`` (which fio cuts to its low end) is refused with the
    option that spreads sizes over a range."""
    m = _RANGE.match(text)
    if m:
        try:
            low = parse_fio_size(m.group(1), kb_base)
            parse_fio_size(m.group(2), kb_base)
        except UnitError:
            pass
        else:
            raise UnitError(f"{text.strip()!r} is a range: bs takes one size per direction, and fio would run "
                            f"only {low:,}-byte IOs; for sizes spread over {text.strip()} write bsrange="
                            f"{text.strip()}")
    return parse_fio_size(text, kb_base)


def _range_mid(opt: str, text: str, kb_base: int, fail: Callable[[str, str], SchemaError]) -> int:
    """A size or a range ``lo-hi`` / ``lo:hi`` (fio's irange), read as its midpoint in bytes."""
    for sep in ("-", ":"):
        if sep in text:
            lo_text, _, hi_text = text.partition(sep)
            break
    else:
        lo_text = hi_text = text
    try:
        lo, hi = parse_fio_size(lo_text, kb_base), parse_fio_size(hi_text, kb_base)
    except UnitError as e:
        raise fail(opt, e.message) from None
    lo, hi = min(lo, hi), max(lo, hi)  # fio swaps a reversed range
    return (lo + hi) // 2


def _positive(opt: str, value: object, fail: Callable[[str, str], SchemaError]) -> int:
    if not isinstance(value, int) or value < 1:
        raise fail(opt, f"{opt} must be at least 1 byte, got {value!r}")
    return value
