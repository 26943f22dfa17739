"""IO sizes of a fio job per direction: ``bs`` (and its write size), or a distribution from
``bssplit`` or ``bsrange``.

- ``bssplit=4k/10:64k/50:32k/40`` gives sizes and their percentages; entries without a
  percentage share what is left equally; a comma separates the reads' list from the
  writes' (``2k/50:4k/50,4k/90:8k/10``), and one list serves both.
- A direction left empty (``bssplit=,4k/50:8k/50``) keeps the job's ``bs`` for it, as in fio.
- ``bsrange=1k-16k`` (``read,write`` likewise): fio draws sizes uniformly among the multiples
  of the lower bound up to the upper one; the model keeps at most :data:`RANGE_POINTS`
  sizes, each the mean of an equal share of those multiples.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import InputError, SchemaError
from .options import parse_fio_size

if TYPE_CHECKING:
    from .job import FioJob

__all__ = ["io_sizes", "RANGE_POINTS"]

#: Sizes kept from a ``bsrange`` (each the mean of an equal share of the range's sizes).
RANGE_POINTS = 8

Sizes = list[tuple[int, float]]


def _size(text: str, kb_base: int, opt: str) -> int:
    try:
        value = parse_fio_size(text.strip(), kb_base)
    except InputError as e:
        raise SchemaError(e.message, field=opt) from None
    if value < 1:
        raise SchemaError(f"sizes must be at least 1 byte, got {text!r}", field=opt)
    from .job import LIMITS  # (the job module imports this one)
    if value > LIMITS["bs"]:
        raise SchemaError(f"sizes must be at most {LIMITS['bs']:g} bytes, as bs, got {text!r}", field=opt)
    return value


def _split(text: str, kb_base: int) -> Sizes:
    entries: list[tuple[int, float | None]] = []
    for item in text.split(":"):
        size, _, pct = item.partition("/")
        if not size.strip():
            raise SchemaError(f"expected size/percent entries separated by ':', got {text!r}", field="bssplit")
        share = None
        if pct.strip():
            try:
                if not pct.strip().isascii():  # float() reads any script's digits; fio only ASCII ones
                    raise ValueError(pct)
                share = float(pct)
            except ValueError:
                raise SchemaError(f"expected a percentage after '/', got {pct!r}", field="bssplit") from None
            if not 0 <= share <= 100:
                raise SchemaError(f"percentages are 0..100, got {pct!r}", field="bssplit")
        entries.append((_size(size, kb_base, "bssplit"), share))
    given = sum(s for _, s in entries if s is not None)
    if given > 100 + 1e-9:
        raise SchemaError(f"the percentages add up to {given:g}, over 100", field="bssplit")
    open_ = [e for e in entries if e[1] is None]
    rest = (100.0 - given) / len(open_) if open_ else 0.0
    out: dict[int, float] = {}
    for size, share in entries:
        out[size] = out.get(size, 0.0) + (share if share is not None else rest)
    total = sum(out.values())
    if total <= 0:
        raise SchemaError(f"no size has a share in {text!r}", field="bssplit")
    return [(size, share / total) for size, share in out.items() if share > 0]


def _range(text: str, kb_base: int) -> Sizes:
    for sep in ("-", ":"):
        if sep in text:
            lo_text, _, hi_text = text.partition(sep)
            break
    else:
        raise SchemaError(f"expected a range low-high, got {text!r}", field="bsrange")
    lo, hi = sorted((_size(lo_text, kb_base, "bsrange"), _size(hi_text, kb_base, "bsrange")))
    count = hi // lo
    groups = min(RANGE_POINTS, count)
    out = []
    for g in range(groups):
        first, last = 1 + g * count // groups, (g + 1) * count // groups
        mean = (first + last) / 2 * lo
        out.append((int(round(mean)), (last - first + 1) / count))
    return out


def _per_direction(text: str, parse, plain: tuple[Sizes, Sizes]) -> tuple[Sizes, Sizes]:
    """One list for both directions, or ``reads,writes``: a direction left empty keeps the
    job's plain ``bs`` sizes (`plain`), as fio leaves a direction it is given nothing for."""
    parts = text.split(",")
    if len(parts) == 1:
        reads = parse(parts[0])
        return reads, reads
    reads = parse(parts[0]) if parts[0].strip() else plain[0]
    writes = parse(parts[1]) if parts[1].strip() else plain[1]
    return reads, writes


def io_sizes(fio: FioJob) -> dict[str, Sizes]:
    """``{"read": [(bytes, share)], "write": [...]}`` for the job; raises SchemaError (field
    ``bssplit`` or ``bsrange``) on a value fio would refuse. With ``bs_is_seq_rand=1`` fio
    reads the lists as ``sequential,random`` rather than ``read,write``: a sequential job
    takes the first for both directions, a random one the second."""
    kb_base = 1000 if fio.options.get("kb_base") == "1000" else 1024
    plain: tuple[Sizes, Sizes] = ([(fio.bs, 1.0)], [(fio.bs_write or fio.bs, 1.0)])
    if fio.options.get("bssplit"):
        reads, writes = _per_direction(fio.options["bssplit"], lambda t: _split(t, kb_base), plain)
    elif fio.options.get("bsrange"):
        reads, writes = _per_direction(fio.options["bsrange"], lambda t: _range(t, kb_base), plain)
    else:
        return {"read": plain[0], "write": plain[1]}
    if fio.options.get("bs_is_seq_rand", "").strip() == "1":
        reads = writes = writes if fio.random else reads
    return {"read": reads, "write": writes}
