"""Invariants every bundled price must keep: third-party price tables are checked, never trusted.

One implementation serves the build script (``tools/catalog/prices.py``, which corrects or
drops a failing row before it is written) and the test that runs the same checks over the
bundled table in every region, so a rebuild cannot bring a known class of error back.

The invariants, per region:

- **per-vCPU price within a family** (:func:`check_vm_family`): sizes of one family and
  generation (``Standard_E{n}as_v5``; constrained-core sizes such as ``E16-4as_v5`` count
  their parent's vCPUs, as they carry the parent's price) cost the same per vCPU. A size
  whose price per vCPU is more than :data:`TOLERANCE` above the family's lowest fails. The
  lowest is the reference because the error this catches, a Windows price in a Linux
  table, only ever raises a price: Windows adds about $0.046 per vCPU-hour, which is at
  least 34 % of the Linux per-vCPU price of every family checked, while the sizes of one
  family differ by at most 19 % in the bundled data (E-series v3, A v2, Dnds v6).
  Families whose size number is not their vCPU count, or whose sizes differ in memory per
  vCPU or are priced per GPU, are not checked: :func:`family_exemption` says why.
- **Linux at or below Windows** (:func:`check_linux_windows`) where a source gives both.
- **a disk tier's price grows with its size** (:func:`check_disk_tiers`): P1 < P2 < ... < P80
  within Premium SSD, Standard SSD (E) and Standard HDD (S).
- **two sources agree** (:func:`disagreements`) within :data:`AGREEMENT`; the build resolves
  a disagreement by the rule in :func:`resolve_vms`.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from typing import NamedTuple

__all__ = ["TOLERANCE", "AGREEMENT", "WINDOWS_PER_VCPU_HOUR", "Failure", "VmName", "parse_vm", "family_exemption",
           "check_vm_family", "check_linux_windows", "check_disk_tiers", "disagreements", "resolve_vms",
           "check_region", "check_table"]

TOLERANCE = 0.25
"""How far above its family's lowest price per vCPU a size may be (a fraction)."""

AGREEMENT = 0.005
"""Two sources agree when their figures differ by at most this fraction of the larger one."""

WINDOWS_PER_VCPU_HOUR = 0.046
"""What a Windows licence adds to a VM's hourly price per vCPU (USD, pay-as-you-go); the
check detects a Windows price where the family's Linux price per vCPU-hour is below
``WINDOWS_PER_VCPU_HOUR / TOLERANCE`` ($0.184)."""

_NAME = re.compile(r"^Standard_([A-Z]+)(\d+)(?:-(\d+))?([a-z]*)((?:_(?!v\d+$)[A-Za-z0-9]+)*)(?:_(v\d+))?$")

_EXEMPT = {
    "A": "A-series v1: A0 is a shared core, A8-A11 are HPC sizes; the number is no vCPU count",
    "B": "B-series is burstable, priced by its baseline CPU share, not per vCPU",
    "D": "D-series v1 and v2: one name holds D1-D5 and the memory-optimised D11-D15, whose number is no vCPU count",
    "DS": "DS-series v1 and v2: as D (DS11-DS15 are memory-optimised, the number is no vCPU count)",
    "G": "G-series: the number is no vCPU count (G1 has 2 vCPUs)",
    "GS": "GS-series: the number is no vCPU count (GS1 has 2 vCPUs)",
    "M": "M-series: sizes of one name differ in memory per vCPU (and Windows adds under 25 % of their price)",
    "NC": "GPU sizes are priced per GPU, not per vCPU",
    "ND": "GPU sizes are priced per GPU, not per vCPU",
    "NV": "GPU sizes are priced per GPU, not per vCPU",
    "NG": "GPU sizes are priced per GPU, not per vCPU",
    "NM": "media-accelerator sizes are priced per accelerator, not per vCPU",
    "NP": "FPGA sizes are priced per FPGA, not per vCPU",
    "PB": "FPGA sizes are priced per FPGA, not per vCPU",
    "H": "HPC sizes: constrained-core variants keep the full price, the number is the active core count",
    "HB": "HPC sizes: constrained-core variants keep the full price, the number is the active core count",
    "HC": "HPC sizes: constrained-core variants keep the full price, the number is the active core count",
    "HX": "HPC sizes: constrained-core variants keep the full price, the number is the active core count",
}
_EXEMPT_SIZES = {
    re.compile(r"^Standard_E64i?s?_v3$|^Standard_E64-(16|32)s_v3$"):
        "E64(i)(s)_v3 has 432 GiB where the family has 8 GiB per vCPU, and is priced below the family's per-vCPU rate",
}
_TIER = re.compile(r"^([PES])(\d+)$")


class Failure(NamedTuple):
    """One figure that breaks an invariant: where, what, and why (a sentence)."""

    section: str
    ident: str
    field: str
    region: str
    value: float
    rule: str
    reason: str


class VmName(NamedTuple):
    """A VM size name taken apart: ``Standard_E16-4as_v5`` is family ``E``, 16 vCPUs (its
    parent's), 4 active, features ``as``, version ``v5``."""

    family: str
    vcpus: int
    active: int | None
    features: str
    extra: str
    version: str

    @property
    def key(self) -> tuple[str, str, str, str]:
        """The family and generation the size belongs to."""
        return self.family, self.features, self.extra, self.version


def parse_vm(name: str) -> VmName | None:
    """``name`` taken apart, or None where it follows no size-name pattern."""
    m = _NAME.match(name)
    if not m:
        return None
    family, n, active, features, extra, version = m.groups()
    return VmName(family, int(n), int(active) if active else None, features, extra or "", version or "")


def family_exemption(name: str) -> str | None:
    """Why the per-vCPU check does not apply to size ``name``, or None where it does."""
    parsed = parse_vm(name)
    if parsed is None:
        return "the name follows no size-name pattern"
    for pattern, why in _EXEMPT_SIZES.items():
        if pattern.match(name):
            return why
    if parsed.family in ("D", "DS") and parsed.version in ("", "v2"):
        return _EXEMPT[parsed.family]
    if parsed.family == "A" and parsed.version:
        return None
    if parsed.family in ("D", "DS"):
        return None
    if parsed.family in _EXEMPT:
        return _EXEMPT[parsed.family]
    if "Promo" in parsed.extra:
        return "a promotional price of a size that has its own row"
    if parsed.vcpus == 0:
        return "the number is no vCPU count"
    return None


def check_vm_family(prices: Mapping[str, float], region: str, field: str = "price_per_hour",
                    tolerance: float = TOLERANCE) -> list[Failure]:
    """The sizes of ``prices`` (size -> hourly price in one region) whose price per vCPU is
    more than ``tolerance`` above their family's lowest."""
    families: dict[tuple, list[tuple[str, int, float]]] = defaultdict(list)
    for name, price in prices.items():
        if price <= 0 or family_exemption(name):
            continue
        parsed = parse_vm(name)
        assert parsed is not None
        families[parsed.key].append((name, parsed.vcpus, price))
    failures = []
    for members in families.values():
        if len(members) < 2:
            continue
        lowest, low_name = min((price / vcpus, name) for name, vcpus, price in members)
        for name, vcpus, price in members:
            ratio = price / vcpus / lowest
            if ratio > 1 + tolerance:
                failures.append(Failure(
                    "vms", name, field, region, price, "per-vcpu",
                    f"${price / vcpus:.4f} per vCPU-hour is {ratio:.2f}x its family's lowest "
                    f"(${lowest:.4f}, {low_name.removeprefix('Standard_')}); the tolerance is {1 + tolerance:.2f}x"))
    return failures


def check_linux_windows(linux: Mapping[str, float], windows: Mapping[str, float], region: str) -> list[Failure]:
    """The sizes whose Linux price is above their Windows price (both given)."""
    return [Failure("vms", name, "price_per_hour", region, price, "linux-above-windows",
                    f"its Linux price ${price:g} is above its Windows price ${windows[name]:g}")
            for name, price in linux.items() if name in windows and price > windows[name]]


def check_disk_tiers(prices: Mapping[str, float], region: str) -> list[Failure]:
    """The disk tiers (``P30``, ``E10``, ``S4`` -> price of one disk a month) not priced above
    the next smaller tier of their kind. Both tiers of a pair that breaks the order fail: the
    data cannot say which of the two is wrong."""
    kinds: dict[str, list[tuple[int, str, float]]] = defaultdict(list)
    for tier, price in prices.items():
        m = _TIER.match(tier)
        if m:
            kinds[m.group(1)].append((int(m.group(2)), tier, price))
    failures: dict[str, Failure] = {}
    for tiers in kinds.values():
        tiers.sort()
        for (_, small, small_price), (_, big, big_price) in zip(tiers, tiers[1:]):
            if big_price <= small_price:
                why = f"{big} ${big_price:g} a month is not above the smaller {small} ${small_price:g}"
                for tier, price in ((small, small_price), (big, big_price)):
                    failures.setdefault(tier, Failure("disks", tier, "price_per_month", region, price,
                                                      "tier-order", why))
    return list(failures.values())


def disagreements(first: Mapping[str, float], second: Mapping[str, float],
                  agreement: float = AGREEMENT) -> dict[str, tuple[float, float]]:
    """The keys both give whose figures differ by more than ``agreement`` of the larger."""
    return {key: (a, second[key]) for key, a in first.items()
            if key in second and abs(a - second[key]) > agreement * max(a, second[key])}


class Correction(NamedTuple):
    """A row the build changed: ``now`` None means dropped (unpriced)."""

    section: str
    ident: str
    field: str
    region: str
    was: float
    now: float | None
    source: str
    rule: str
    reason: str


def resolve_vms(primary: Mapping[str, float], secondary: Mapping[str, float], region: str,
                primary_name: str, secondary_name: str) -> tuple[dict[str, tuple[float, str]], list[Correction]]:
    """One region's VM prices from two sources, and the corrections made.

    The rule: the primary source's figure stands unless it fails the per-vCPU invariant or
    the second source disagrees. A failing figure is replaced by the second source's where
    that one passes, and dropped (unpriced) otherwise. Where both pass and disagree, the
    second source's figure is kept only if it is the lower: a Windows price only ever raises
    a figure, and the two sources are a few months apart. Sizes only the second source
    gives are not added (it is the check, not a source of new rows)."""
    prices = dict(primary)
    failing = {f.ident: f for f in check_vm_family(prices, region)}
    differ = disagreements(primary, secondary)
    out: dict[str, tuple[float, str]] = {name: (price, primary_name) for name, price in primary.items()}
    corrections = []
    for name in sorted(set(failing) | set(differ)):
        was = primary[name]
        other = secondary.get(name)
        trial = dict(prices)
        if other is not None:
            trial[name] = other
        other_passes = other is not None and not any(f.ident == name for f in check_vm_family(trial, region))
        if name in failing:
            if other_passes:
                out[name] = (other, secondary_name)
                corrections.append(Correction("vms", name, "price_per_hour", region, was, other, secondary_name,
                                              "per-vcpu", failing[name].reason + f"; {secondary_name} gives ${other:g}"))
            else:
                del out[name]
                why = (f"{secondary_name} gives none" if other is None
                       else f"{secondary_name}'s ${other:g} fails too")
                corrections.append(Correction("vms", name, "price_per_hour", region, was, None, "",
                                              "per-vcpu", failing[name].reason + f"; {why}: dropped as unpriced"))
        elif other is not None and other < was and other_passes:
            out[name] = (other, secondary_name)
            corrections.append(Correction("vms", name, "price_per_hour", region, was, other, secondary_name,
                                          "sources-disagree",
                                          f"{primary_name} ${was:g}, {secondary_name} ${other:g}: the lower, "
                                          "which passes the per-vCPU check, is kept"))
    return out, corrections


def check_region(vm_prices: Mapping[str, float], disk_prices: Mapping[str, float], region: str) -> list[Failure]:
    """Every per-region invariant over one region's VM (hourly) and disk-tier (monthly) prices."""
    return check_vm_family(vm_prices, region) + check_disk_tiers(disk_prices, region)


def check_table(rows: Mapping[tuple[str, str, str], Mapping[str, float]]) -> list[Failure]:
    """Every per-region invariant over a price table: ``{(section, id, field): {region: price}}``
    (the bundled table's rows, or the build's before it writes them)."""
    regions: dict[str, tuple[dict[str, float], dict[str, float]]] = defaultdict(lambda: ({}, {}))
    for (section, ident, fld), values in rows.items():
        for region, value in values.items():
            if section == "vms" and fld == "price_per_hour":
                regions[region][0][ident] = value
            elif section == "disks" and fld == "price_per_month":
                regions[region][1][ident] = value
    failures = []
    for region in sorted(regions):
        failures += check_region(*regions[region], region)
    return failures
