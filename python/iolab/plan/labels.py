"""Labels that say what to buy, and the plan's money: one formatter for every rendering.

A label is written from a candidate's JSON ``config`` (docs/plan.md), so the command's
text, the HTML report of a plan and of a saved ``plan --json`` read exactly alike:

- disks: ``Standard_D16pls_v5 (Arm) + 3 × P30 performance plus``; Premium SSD v2 and Ultra
  with what to provision, each: ``4 × premium-v2 (256 GiB, 3,000 IOPS, 125 MB/s each)``;
  host caching when it is not none: ``, cache readonly``;
- shares: ``anf ultra 2 TiB in a 4 TiB pool (256 MiB/s), nfs3 nconnect 4`` (the billed
  pool, whenever the level has pools; ``manual QoS`` and ``large`` when they apply);
- several workloads: ``Standard_E8s_v5 + data: 2 × P30; log: 1 × P20``;
- a pool plan's level: ``anf premium 6 TiB pool (data 4 TiB, log 512 GiB)``;
- ``clients`` × in front when more than one.

Money is dollars and cents with thousands separators (``$1,234.50``), ``unpriced`` when a
part has no price.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..units import format_money, format_ops, format_rate, format_size
from ..articles import a

__all__ = ["config_label", "disk_label", "share_label", "vm_label", "vm_arch", "money", "ARCH_WORDS",
           "shortfall_words", "dearer", "near_miss_line", "kind_line", "other_line", "unpriced_line", "explanations"]

ARCH_WORDS = {"arm64": "Arm"}
"""How a VM's architecture reads after its size, where it is not the usual x86-64."""


def money(x: float | None) -> str:
    """``$1,234.50``; ``unpriced`` for None (:func:`iolab.units.format_money`)."""
    return format_money(x)


def dearer(diff: float) -> str:
    """How much more a configuration costs than #1: ``costs $37.96/month more than #1``."""
    return f"costs {format_money(diff)}/month more than #1" if diff > 0.005 else "costs the same as #1"


def vm_arch(config: Mapping[str, Any]) -> str | None:
    """The VM's architecture: as the configuration states it (its ``arch`` key, which a
    plan's JSON carries from the VM's catalog row), else as the size's name gives it
    (:func:`iolab.catalog.vm.arch_of`, the rule the catalog applies to rows that state
    none), so a label reads the same from a plan's objects and from its JSON; None for a
    generic client."""
    arch = config.get("arch")
    if isinstance(arch, str) and arch:
        return arch
    vm = config.get("vm")
    if isinstance(vm, str) and vm:
        from ..catalog.vm import arch_of

        return arch_of(vm)
    return None


def vm_label(config: Mapping[str, Any]) -> str | None:
    """``Standard_D16pls_v5``, ``Standard_D16pls_v5 (Arm)`` when it states an Arm
    architecture; None for a generic client."""
    vm = config.get("vm")
    if not vm:
        return None
    word = ARCH_WORDS.get(vm_arch(config) or "")
    return f"{vm} ({word})" if word else str(vm)


def disk_label(d: Mapping[str, Any]) -> str:
    """One disk group: ``3 × P30 performance plus``, ``4 × premium-v2 (256 GiB, 3,000 IOPS,
    125 MB/s each)``, ``2 × P20, cache readonly``."""
    text = f"{d['count']} × {d['sku']}" + (" performance plus" if d.get("performance_plus") else "")
    if d.get("size") is not None:
        each = " each" if d["count"] > 1 else ""
        text += (f" ({format_size(d['size'])}, {format_ops(d.get('iops') or 0)}, "
                 f"{format_rate(d.get('bandwidth') or 0)}{each})")
    caching = d.get("caching") or "none"
    return text + (f", cache {caching}" if caching != "none" else "")


def share_label(c: Mapping[str, Any]) -> str:
    """A share: ``anf ultra 2 TiB in a 4 TiB pool (256 MiB/s), nfs3 nconnect 4``."""
    if c.get("size") is None:  # a level that could not hold the volumes: nothing was sized
        return f"{c['service']} {c['level']}"
    word = "channels" if c.get("protocol") == "smb3" else "nconnect"
    large = " large" if c.get("large") else ""
    qos = " manual QoS" if c.get("qos") == "manual" else ""
    pool = f" in {a(format_size(c['pool']))} pool" if c.get("pool") else ""
    return (f"{c['service']} {c['level']}{large} {format_size(c['size'])}{pool} "
            f"({format_rate(c.get('throughput') or 0, binary=True)}{qos}), {c.get('protocol')} {word} "
            f"{c.get('nconnect', 1)}")


def config_label(c: Mapping[str, Any]) -> str:
    """A configuration in one line (see the module's docstring)."""
    if isinstance(c.get("volumes"), list):  # a pool plan's level: the pool and its volumes
        vols = ", ".join(f"{v.get('name')} {format_size(v.get('size') or 0)}" for v in c["volumes"])
        return f"{c.get('service')} {c.get('level')} {format_size(c.get('pool') or 0)} pool ({vols})"
    if c.get("volumes"):
        what = "; ".join(f"{name}: {' + '.join(disk_label(d) for d in v.get('disks') or [])}"
                         for name, v in c["volumes"].items())
    elif c.get("service"):
        what = share_label(c)
    else:
        what = " + ".join(disk_label(d) for d in c.get("disks") or [])
    n = c.get("clients") or 1
    head = f"{n} × " if n > 1 else ""
    vm = vm_label(c)
    if not what:
        return f"{head}{vm}"
    if vm is None:
        return f"{head}client: {what}" if head else what
    return f"{head}{vm} + {what}"


def shortfall_words(shortfall: float | None) -> str:
    """How far a near miss came, its ``shortfall``: ``1.25× its limit`` (a resource 100 %
    busy where 80 % is allowed, or a latency 1.25 times its bound), ``no bound``."""
    if shortfall is None:
        return "no bound"
    return f"{shortfall:.2f}× its limit"


def near_miss_line(m: Mapping[str, Any]) -> str:
    """A near miss (``near_misses[]`` of the plan's JSON) in one line: what it is, its cost,
    how far it came, what it lacks and the catalog rules behind that."""
    facts = f" ({'; '.join(m['facts'])})" if m.get("facts") else ""
    c, cost = m["config"], m.get("monthly_cost")
    # a pool level that cannot hold the volumes has no size, hence no price to speak of
    bought = cost is not None or any(k in c for k in ("vm", "disks", "volumes", "size", "pool"))
    cost_text = f"{money(cost)}/month, " if cost is not None else "unpriced, " if bought else ""
    return (f"{config_label(c)} ({cost_text}{shortfall_words(m.get('shortfall'))}): "
            f"{'; '.join(m.get('lacks') or [])}{facts}")


def kind_line(k: Mapping[str, Any]) -> str:
    """The best of one kind (``best_by_kind[]``) in one line: ``anf: #2 ... ($853.97/month):
    costs $51.34/month more than #1 ...``."""
    c = k["candidate"]
    rank = f"#{c['rank']} " if c.get("rank") else ""
    why = c.get("why") or "the answer"
    return f"{k.get('service') or k['kind']}: {rank}{config_label(c['config'])} ({money(c.get('monthly_cost'))}): {why}"


def other_line(m: Mapping[str, Any]) -> str:
    """A feasible but dearer option (``others[]`` with a ``why``) in one line."""
    return f"{config_label(m['config'])} ({money(m.get('monthly_cost'))}/month): {m.get('why')}"


def unpriced_line(u: Mapping[str, Any], region: str | None) -> str:
    """A feasible configuration without a price (``unpriced[]``) and how to price it."""
    where = f" in {region}" if region else ""
    supply = "; ".join(u.get("supply") or [])
    how = f"; to rank it, give the price in a catalog file (--catalog FILE): {supply}" if supply else ""
    return f"{config_label(u['config'])}: no price{where} for {', '.join(u.get('missing') or [])}{how}"


def explanations(doc: Mapping[str, Any]) -> list[tuple[str, list[str]]]:
    """Why not the others, from a plan's JSON (of any kind: disks, shares, several
    workloads, a pool), as (title, lines) groups in the order every rendering shows them:
    the runners-up (untitled), the near misses closest first, the best of each kind searched
    (when more than one was), the other options, the feasible ones without a price, what
    was not searched. Groups without lines are left out."""
    cands = doc.get("candidates") or []
    region = doc.get("region")
    groups: list[tuple[str, list[str]]] = [
        ("", [f"#{c['rank']} {config_label(c['config'])}: {c['why']}" for c in cands[1:]
              if c.get("why") and c.get("config")])]
    if "near_misses" in doc:
        near = [m for m in doc["near_misses"] or [] if m.get("config")]
        cheaper = bool(cands) and cands[0].get("monthly_cost") is not None and \
            all(m.get("monthly_cost") is not None for m in near)
        title = ("near misses, closest first (cheaper than #1, but short of a requirement)" if cheaper else
                 "near misses, closest first (short of a requirement)")
        groups.append((title, [near_miss_line(m) for m in near]))
    else:  # a plan saved before near misses were named
        groups.append(("cheaper, but failing", [f"{config_label(m['config'])} ({money(m.get('monthly_cost'))}): "
                                                + "; ".join(map(str, m.get("lacks") or []))
                                                for m in doc.get("rejected") or [] if m.get("config")]))
    kinds = [kind_line(k) for k in doc.get("best_by_kind") or [] if (k.get("candidate") or {}).get("config")]
    groups.append(("the best of each kind searched", kinds if len(kinds) > 1 else []))
    groups.append(("other options", [other_line(m) for m in doc.get("others") or []
                                     if m.get("config") and m.get("why") and m.get("monthly_cost") is not None]))
    groups.append(("feasible, but without a price (ranked after every priced one)",
                   [unpriced_line(u, region) for u in doc.get("unpriced") or [] if u.get("config")]))
    groups.append(("not searched", [str(t) for t in doc.get("excluded") or []]))
    return [(title, lines) for title, lines in groups if lines]
