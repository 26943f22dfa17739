"""The search space: which catalog rows a requirements file's allow-lists select.

Allow-lists hold catalog ids or shell-style globs (``Standard_D*s_v5``, matched with
:mod:`fnmatch`, ignoring case). An id that is not in the catalog raises
:class:`~iolab.errors.UnknownIdError` with the nearest ids; a glob that matches nothing
raises :class:`~iolab.errors.SchemaError`; both name the file and the list entry.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Callable, Iterable, Sequence

from ..catalog import Catalog, ServiceLevel
from ..errors import SchemaError, UnknownIdError, nearest
from .requirements import Requirements

__all__ = ["select", "vms", "skus", "levels", "series", "fits", "glob"]

_GLOB = set("*?[")


@functools.lru_cache(maxsize=256)
def glob(pattern: str) -> Callable[[str], bool]:
    """Whether an id matches the shell-style ``pattern`` (:func:`fnmatch.fnmatchcase` of both
    casefolded), the pattern translated once for every id it is tried on."""
    match = re.compile(fnmatch.translate(pattern.casefold())).match
    return lambda ident: match(ident.casefold()) is not None


def select(patterns: Sequence[str] | None, known: Iterable[str], kind: str, *, file: str, field: str) -> list[str]:
    """The known ids the allow-list ``patterns`` selects, in catalog order (all when None)."""
    known = list(known)
    if patterns is None:
        return known
    chosen: set[str] = set()
    for i, pattern in enumerate(patterns):
        where = f"{field}[{i}]"
        if not isinstance(pattern, str) or not pattern:
            raise SchemaError(f"expected a {kind} id or a glob, got {pattern!r}", file=file, field=where)
        if _GLOB & set(pattern):
            matches = glob(pattern)
            hits = [k for k in known if matches(k)]
            if not hits:
                hint = nearest(pattern.replace("*", "").replace("?", ""), known)
                raise SchemaError(f"{pattern!r} matches no {kind}" + (f"; nearest: {', '.join(hint)}" if hint else ""),
                                  file=file, field=where)
        else:
            hits = [k for k in known if k.casefold() == pattern.casefold()]
            if not hits:
                raise UnknownIdError(kind, pattern, known, file=file, field=where)
        chosen.update(hits)
    return [k for k in known if k in chosen]


def vms(req: Requirements) -> list[str]:
    """VM sizes to search: the allow-list's, less those ``require.vm`` rules out."""
    ids = select(req.search.vms, req.catalog.vms, "VM size", file=req.file, field="search.vms")
    for need in req.vm_requires():
        ids = [i for i in ids if fits(req.catalog.vms[i], need)]
    return ids


def series(size: str) -> str:
    """The series Azure names a size by: ``Standard_E16-4as_v5`` is ``Easv5``."""
    m = _SERIES.match(size)
    return f"{m.group(1)}{m.group(2)}{m.group(3) or ''}" if m else size


_SERIES = re.compile(r"^Standard_([A-Z]+)\d+(?:-\d+)?([a-z]*)(?:_(?!v\d+$)[A-Za-z0-9]+)*(?:_(v\d+))?$")


def _named(size: str, patterns: Sequence[str]) -> bool:
    """Whether a VM id or its series matches one of ``patterns`` (ids, globs or series)."""
    names = (size, series(size))
    return any(glob(p)(n) for p in patterns for n in names)


def fits(vm, need) -> bool:
    """Whether VM row ``vm`` meets ``require.vm`` (``need``)."""
    if need.arch is not None and vm.arch != need.arch:
        return False
    if need.min_vcpus is not None and vm.vcpus < need.min_vcpus:
        return False
    if need.max_vcpus is not None and vm.vcpus > need.max_vcpus:
        return False
    if need.min_memory is not None and vm.memory < need.min_memory:
        return False
    if need.families is not None and not _named(vm.id, need.families):
        return False
    return not _named(vm.id, need.exclude)


def skus(req: Requirements) -> list[str]:
    """Disk SKUs to search (fixed sizes, provisioned, and sized by their size: gp2, st1, sc1)."""
    cat = req.catalog
    return select(req.search.skus, [*cat.disks, *cat.provisioned, *cat.scaled], "disk SKU", file=req.file,
                  field="search.skus")


def levels(req: Requirements) -> list[ServiceLevel]:
    """Service levels to search: of the allowed services, those the ``levels`` list selects
    (by level name, ``ultra``, or by id, ``anf-ultra``)."""
    cat: Catalog = req.catalog
    services = req.search.services or sorted({s.service for s in cat.services.values()})
    rows = [s for s in cat.services.values() if s.service in services]
    if req.search.services:
        for i, name in enumerate(req.search.services):
            if not any(s.service == name for s in rows):
                raise SchemaError(f"the catalog has no levels of {name!r}", file=req.file,
                                  field=f"search.services[{i}]")
    if req.search.levels is None:
        return rows
    names = sorted({s.level for s in rows} | {s.id for s in rows})
    picked = set(select(req.search.levels, names, "service level", file=req.file, field="search.levels"))
    return [s for s in rows if s.level in picked or s.id in picked]
