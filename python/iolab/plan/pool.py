"""One capacity pool for several volumes with manual QoS (Azure NetApp Files, NetApp Volumes).

For each service level that has manual QoS, the smallest pool that holds every volume and
whose throughput budget covers every volume's throughput:

- each volume is at least the level's minimum volume size (a volume over the regular
  maximum becomes a large volume where the level has them);
- each volume's throughput must lie within the per-volume range (the large-volume
  maximum for a large volume);
- pool size = the largest of the pool minimum, the volumes' total size and the size whose
  budget (pool TiB × the level's rate, or ANF Flexible's provisioned maximum per TiB)
  covers the volumes' total throughput, rounded up to the level's pool size step; at most
  the pool maximum.

Each volume is allocated the throughput it asks; what the budget has beyond that is
``spare`` (assign it to any volume). A level where the volumes cannot share a pool says
which rule stops them.
"""

from __future__ import annotations

import math

import msgspec

from ..catalog import ServiceLevel
from ..errors import RuleViolation, SchemaError, UnknownIdError
from ..units import GiB, TiB, format_rate, format_size
from ..articles import a
from .cost import pool_step, share_price
from .requirements import PoolRequest, Requirements

__all__ = ["PoolVolumePlan", "PoolPlan", "PoolMiss", "plan_pools"]


class PoolVolumePlan(msgspec.Struct, frozen=True):
    """One volume in the pool: its size (bytes), allocated throughput (bytes/s), large or not."""

    name: str
    size: int
    throughput: float
    large: bool = False

    def to_json(self) -> dict:
        doc = {"name": self.name, "size": self.size, "throughput": round(self.throughput, 1)}
        if self.large:
            doc["large"] = True
        return doc


class PoolPlan(msgspec.Struct, frozen=True):
    """A pool of ``pool`` bytes of ``level`` whose ``budget`` (bytes/s) covers its volumes."""

    level: ServiceLevel
    pool: int
    budget: float
    volumes: tuple[PoolVolumePlan, ...]
    monthly_cost: float | None
    sized_by: str          # "capacity", "throughput" or "pool minimum"

    @property
    def assigned(self) -> float:
        return sum(v.throughput for v in self.volumes)

    @property
    def headroom(self) -> float:
        """The share of the budget left unassigned."""
        return 1.0 - self.assigned / self.budget if self.budget > 0 else 0.0

    def to_json(self) -> dict:
        return {
            "monthly_cost": None if self.monthly_cost is None else round(self.monthly_cost, 2),
            "priced": self.monthly_cost is not None,
            "config": {"service": self.level.service, "level": self.level.level, "pool": self.pool,
                       "qos": "manual", "volumes": [v.to_json() for v in self.volumes]},
            "budget": {"total": round(self.budget, 1), "assigned": round(self.assigned, 1),
                       "spare": round(self.budget - self.assigned, 1)},
            "headroom": round(self.headroom, 4),
            "sized_by": self.sized_by,
        }


class PoolMiss(msgspec.Struct, frozen=True):
    """A level whose pool cannot hold the volumes, the rule that stops it and how far they
    are from it (``shortfall``: what they ask over the rule's limit, a ratio over 1; inf
    when the level has no figure to compare with)."""

    level: ServiceLevel
    reason: str
    rule: str
    volume: str | None = None
    shortfall: float = math.inf

    def _config(self) -> dict:
        return {"service": self.level.service, "level": self.level.level}

    def to_json(self) -> dict:
        doc = {"config": self._config(), "rule": self.rule, "lacks": [self.reason]}
        if self.volume:
            doc["volume"] = self.volume
        return doc

    def near_json(self) -> dict:
        """As a near miss (a plan's ``near_misses[]``): no pool was sized, so no cost."""
        return {"config": self._config(), "monthly_cost": None,
                "shortfall": round(self.shortfall, 4) if math.isfinite(self.shortfall) else None,
                "lacks": [self.reason], "facts": []}


def plan_pools(req: Requirements) -> tuple[list[PoolPlan], list[PoolMiss]]:
    """Pools for every candidate level, cheapest first (unpriced after), and the levels that fail."""
    assert req.pool is not None
    pool = req.pool
    plans, misses = [], []
    for level in _levels(req, pool):
        try:
            plans.append(_plan(level, pool))
        except RuleViolation as e:
            misses.append(PoolMiss(level, e.message, e.rule, getattr(e, "volume", None),
                                   getattr(e, "shortfall", math.inf)))
    plans.sort(key=lambda p: (p.monthly_cost is None, p.monthly_cost or 0.0, p.pool, p.level.id))
    misses.sort(key=lambda m: m.shortfall)  # stable: levels equally far keep the catalog's order
    return plans, misses


def _levels(req: Requirements, pool: PoolRequest) -> list[ServiceLevel]:
    rows = [s for s in req.catalog.services.values() if s.service == pool.service]
    if pool.level is not None:
        names = [s.level for s in rows]
        hit = [s for s in rows if s.level.casefold() == pool.level.casefold() or s.id == pool.level]
        if not hit:
            raise UnknownIdError(f"{pool.service} service level", pool.level, names, file=req.file,
                                 field="pool.level")
        if not hit[0].manual_qos:
            raise RuleViolation("manual-qos", f"{hit[0].id} has no manual QoS: its volumes cannot be given "
                                "throughput from a shared pool", file=req.file, field="pool.level")
        return hit
    manual = [s for s in rows if s.manual_qos and s.pool_min_size is not None]
    if not manual:
        raise SchemaError(f"no {pool.service} level has manual QoS and pools", file=req.file, field="pool.service")
    return manual


def _violation(rule: str, message: str, volume: str | None = None, shortfall: float = math.inf) -> RuleViolation:
    """A rule the volumes break, the volume that breaks it and what they ask over its limit."""
    e = RuleViolation(rule, message)
    e.volume = volume  # type: ignore[attr-defined]
    e.shortfall = shortfall  # type: ignore[attr-defined]
    return e


def _plan(level: ServiceLevel, request: PoolRequest) -> PoolPlan:
    volumes = []
    for v in request.volumes:
        size = max(math.ceil(v.capacity / GiB) * GiB, level.min_size)
        large = size > level.max_size
        if large:
            if level.large_min_size is None or level.large_max_size is None:
                raise _violation("volume-size", f"volume {v.name}: {format_size(v.capacity)} is over one {level.id} "
                                 f"volume's {format_size(level.max_size)} and the level has no large volumes", v.name,
                                 size / level.max_size)
            size = max(size, level.large_min_size)
            if size > level.large_max_size:
                raise _violation("volume-size", f"volume {v.name}: {format_size(v.capacity)} is over one large "
                                 f"{level.id} volume's {format_size(level.large_max_size)}", v.name,
                                 size / level.large_max_size)
        high = level.volume_max_throughput or level.max_throughput
        if large and level.large_max_throughput:
            high = level.large_max_throughput
        if v.bandwidth > high * (1 + 1e-9):
            raise _violation("volume-max-throughput", f"volume {v.name} asks {format_rate(v.bandwidth, binary=True)}, "
                             f"over one {level.id} volume's {format_rate(high, binary=True)}", v.name,
                             v.bandwidth / high)
        low = level.volume_min_throughput or 0.0
        volumes.append(PoolVolumePlan(v.name, int(size), max(v.bandwidth, low), large))
    total_size = sum(v.size for v in volumes)
    total_tp = sum(v.throughput for v in volumes)
    per_tib = level.rate_per_tib or level.pool_max_throughput_per_tib
    if per_tib is None:
        raise _violation("pool-budget", f"{level.id} has no rule for a pool's throughput")
    floor = level.pool_min_size or GiB
    for_tp = total_tp / per_tib * TiB
    if level.rate_per_tib is None and level.pool_min_throughput and total_tp <= level.pool_min_throughput:
        for_tp = 0.0
    step = pool_step(level)
    pool = math.ceil(max(floor, total_size, for_tp) / step - 1e-9) * step
    sized_by = "pool minimum" if pool == floor and floor >= total_size else (
        "throughput" if for_tp > total_size else "capacity")
    if level.pool_max_size is not None and pool > level.pool_max_size:
        raise _violation("pool-size", f"the volumes need {a(format_size(pool))} pool, over the {level.id} maximum of "
                         f"{format_size(level.pool_max_size)}", shortfall=pool / level.pool_max_size)
    budget = level.pool_budget(pool)
    if level.rate_per_tib is None:  # throughput provisioned apart (ANF Flexible): only what is needed
        budget = min(budget, max(total_tp, level.pool_min_throughput or 0.0))
    if total_tp > budget * (1 + 1e-9):  # only when a pool maximum throughput caps the budget
        raise _violation("pool-budget", f"the volumes ask {format_rate(total_tp, binary=True)}, over the most a "
                         f"{level.id} pool has ({format_rate(budget, binary=True)})", shortfall=total_tp / budget)
    provisioned = budget if level.rate_per_tib is None else None  # ANF Flexible bills its throughput
    return PoolPlan(level, int(pool), budget, tuple(volumes), share_price(level, int(pool), provisioned), sized_by)
