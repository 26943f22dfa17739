"""Clouds: which cloud a catalog row and a region belong to, and one cloud per scenario.

Every VM size, disk and service level of the catalog belongs to one cloud (its ``cloud``
field: ``azure``, ``gcp`` or ``aws``; ``azure`` when a row does not say). Each cloud has its
regions and a default region (``catalog/data/clouds/clouds.yaml``); a region name belongs to
exactly one cloud, so ``--region us-central1`` means Google Cloud. A scenario or a
requirements file draws its parts (client VM, disks, share) from one cloud:
:func:`one_cloud` refuses parts from two, naming both.

A cloud is data: a new one is an entry of ``clouds.yaml`` and rows that name it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from importlib import resources
from types import MappingProxyType
from typing import Literal

import msgspec

from ..errors import InputError, RuleViolation, UnknownIdError, nearest

__all__ = ["CloudName", "CLOUD_NAMES", "DEFAULT_CLOUD", "Cloud", "Part", "clouds", "cloud", "region_cloud",
           "one_cloud"]

CloudName = Literal["azure", "gcp", "aws"]
"""The clouds a catalog row may belong to."""
CLOUD_NAMES: tuple[str, ...] = ("azure", "gcp", "aws")
DEFAULT_CLOUD = "azure"
"""The cloud of a row that does not name one, and of a plan whose parts name none."""


class Cloud(msgspec.Struct, frozen=True):
    """One cloud: its ``name`` (``gcp``), ``title`` (``Google Cloud``), ``regions``, the
    region used when none is given (``default_region``) and what it calls a VM's kind
    (``vm_noun``: ``machine type``)."""

    name: str
    title: str
    default_region: str
    regions: tuple[str, ...]
    vm_noun: str = "VM size"

    def label(self) -> str:
        """``Google Cloud (gcp)``: how messages name the cloud."""
        return f"{self.title} ({self.name})"


class Part(msgspec.Struct, frozen=True):
    """One part of a scenario or requirements file that belongs to a cloud: where the file
    names it (``clients.vm``), its catalog id (``n2-standard-32``), what it is (``VM size``,
    which messages say in its cloud's words: ``machine type``) and its cloud."""

    field: str
    ident: str
    what: str
    cloud: str


@lru_cache(maxsize=1)
def clouds() -> Mapping[str, Cloud]:
    """Every cloud by name, read from the bundled ``clouds.yaml`` on first use."""
    from ..schema import parse_yaml

    name = "iolab/catalog/data/clouds/clouds.yaml"
    data = parse_yaml(resources.files("iolab.catalog").joinpath("data", "clouds", "clouds.yaml").read_bytes(),
                      file=name)
    out = {}
    for key, body in data["clouds"].items():
        regions = tuple(str(r) for r in body["regions"])
        if key not in CLOUD_NAMES or body["default_region"] not in regions:
            raise InputError(f"cloud {key!r}: unknown name or default region outside its regions", file=name)
        out[key] = Cloud(key, body["title"], body["default_region"], regions, body.get("vm_noun", "VM size"))
    seen: dict[str, str] = {}
    for c in out.values():
        for r in c.regions:
            if r in seen:
                raise InputError(f"region {r!r} belongs to both {seen[r]} and {c.name}", file=name)
            seen[r] = c.name
    return MappingProxyType(out)


def cloud(name: str, *, field: str | None = "--cloud") -> Cloud:
    """The cloud ``name`` (any case); :class:`UnknownIdError` (exit 2) naming the clouds otherwise."""
    found = clouds().get(name.strip().casefold())
    if found is None:
        raise UnknownIdError("cloud", name, list(clouds()), field=field)
    return found


def _folded(region: str) -> str:
    return region.strip().casefold().replace(" ", "")


def region_cloud(region: str, *, field: str | None = "--region") -> tuple[Cloud, str]:
    """The cloud a region belongs to and the region's own spelling (``WestEurope`` →
    ``westeurope``); :class:`UnknownIdError` (exit 2) naming the nearest regions of every
    cloud otherwise."""
    folded = _folded(region)
    for c in clouds().values():
        if folded in c.regions:
            return c, folded
    raise UnknownIdError("region", region, [r for c in clouds().values() for r in c.regions], field=field)


def region_in(region: str, want: str, parts: str, *, field: str | None = "--region") -> str:
    """``region``'s name when it belongs to cloud ``want``; otherwise an
    :class:`InputError` (exit 2) saying whose region it is, that ``parts`` (what asks for
    ``want``: ``--cloud gcp``) wants a region of ``want``, and the nearest such regions."""
    c, name = region_cloud(region, field=field)
    if c.name == want:
        return name
    target = cloud(want, field=field)
    hint = nearest(name, target.regions) or [target.default_region]
    raise InputError(f"{name} is {_an(c.label())} region, and {parts} wants {_an(target.label())} region; "
                     f"nearest: {', '.join(hint)}", field=field)


def one_cloud(parts: Iterable[Part], *, file: str | None = None, kind: str = "scenario") -> str | None:
    """The one cloud of ``parts`` (None when there are none); a :class:`RuleViolation`
    (rule ``one-cloud``, exit 2) naming the first two parts of different clouds otherwise
    (``kind``: what the file is, ``scenario`` or ``requirements file``)."""
    first: Part | None = None
    for p in parts:
        if first is None:
            first = p
        elif p.cloud != first.cloud:
            raise RuleViolation("one-cloud", f"{first.field} {first.ident} is {_an(_label(first.cloud))} "
                                f"{_what(first)} but {p.field} {p.ident} is {_an(_label(p.cloud))} {_what(p)}: "
                                f"a {kind}'s parts come from one cloud", file=file, field=p.field)
    return first.cloud if first else None


def _what(part: Part) -> str:
    """What ``part`` is, a VM in its cloud's words (``instance type`` on AWS)."""
    found = clouds().get(part.cloud)
    return found.vm_noun if found is not None and part.what == "VM size" else part.what


def _label(name: str) -> str:
    found = clouds().get(name)
    return found.label() if found else name


def _an(label: str) -> str:
    return f"{'an' if label[0] in 'AEIOU' else 'a'} {label}"
