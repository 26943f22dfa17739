"""Evaluated configurations as columns: one :class:`Batch` per family of the search space.

A batch holds, for each of its rows (configurations), the monthly cost (NaN when the
catalog has no price for a part), the utilization at the required load of each kind of
resource (the busiest resource of that kind), the mean latency at that load (seconds,
inf when a resource is saturated), and how to rebuild a row's :class:`Config`.
Resource kinds are docs/model.md's, plus ``capacity`` (required over usable bytes).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

import msgspec
import numpy as np

from .config import Config

__all__ = ["Batch", "Labels", "Limits", "WORDS", "words", "TOLERANCE"]

TOLERANCE = 1e-9
"""A utilization up to its limit × (1 + TOLERANCE) counts as within it."""


class Limits(msgspec.Struct, frozen=True):
    """What a feasible row must keep: every resource at most ``max_utilization`` busy
    (``capacity``, the space used, at most 1) and, with a bound, the mean ``latency``."""

    latency: float | None = None
    max_utilization: float = 1.0

    @classmethod
    def of(cls, req) -> "Limits":
        """The limits a :class:`~iolab.plan.Requirements` with ``require`` sets."""
        need = req.require
        return cls(need.latency, need.max_utilization) if need is not None else cls()

    def limit(self, kind: str) -> float:
        """The highest utilization allowed to a resource of ``kind``."""
        return 1.0 if kind == "capacity" else self.max_utilization

    def over(self, kind: str, u: np.ndarray | float) -> np.ndarray | bool:
        """Where ``u`` breaks the limit of ``kind``."""
        return u > self.limit(kind) * (1.0 + TOLERANCE)

    def ok(self, util: dict[str, np.ndarray], latency: np.ndarray, kinds=None) -> np.ndarray:
        """Rows whose every utilization (of ``kinds``, default all) and mean latency hold."""
        good = np.ones(len(latency), dtype=bool)
        for k, u in util.items():
            if kinds is None or k in kinds:
                good &= ~self.over(k, u)
        if self.latency is not None and (kinds is None or "latency" in kinds):
            good &= latency <= self.latency * (1.0 + TOLERANCE)
        return good

    def fails(self, util: dict[str, np.ndarray]) -> np.ndarray:
        """How many resource kinds break their limit, row by row."""
        out: np.ndarray | int = 0
        for k, u in util.items():
            if isinstance(out, np.ndarray):
                out += self.over(k, u)  # in place: no new array per kind
            else:
                out = np.asarray(self.over(k, u)).astype(int)
        return out

WORDS = {
    "vm": "the VM's uncached limit",
    "vm-cache": "the VM's cached limit",
    "disk": "the disks",
    "network": "the VM's network egress",
    "connection": "the client's connections",
    "connection-slots": "the NFSv3 connection slots",
    "session": "the NFSv4.1 session slots",
    "service": "the service's limit",
    "file": "one file's limit",
    "capacity": "capacity",
}
"""How a resource kind reads in an explanation."""


def words(kind: str, cloud: str | None = None) -> str:
    """How resource ``kind`` reads in an explanation of a plan in ``cloud`` (a VM's cap on
    its disks in that cloud's words, :data:`iolab.bottleneck.VM_WORDS`)."""
    from ..bottleneck import VM_WORDS

    if kind == "vm" and cloud in VM_WORDS:
        return VM_WORDS[cloud]
    return WORDS.get(kind, kind)


class Labels(msgspec.Struct, frozen=True):
    """A name for each row, stored as ``names[index[i]]``: the rows of a stacked batch
    carry small integers, not one string each."""

    names: list[str]
    index: np.ndarray

    @classmethod
    def of(cls, values) -> "Labels":
        """Labels from one name per row (codes in order of first appearance)."""
        if isinstance(values, Labels):
            return values
        codes: dict[str, int] = {}
        index = np.fromiter((codes.setdefault(v, len(codes)) for v in values), dtype=np.intp)
        return cls(list(codes), index)

    def __len__(self) -> int:
        return len(self.index)

    def __getitem__(self, i: int) -> str:
        return self.names[self.index[i]]

    def __iter__(self):
        return map(self.names.__getitem__, self.index.tolist())

    def used(self) -> list[str]:
        """The names some row carries."""
        present = np.bincount(self.index, minlength=len(self.names)) > 0
        return [name for name, here in zip(self.names, present.tolist()) if here]


class Batch(msgspec.Struct):
    """Rows of one family (say, every VM × count for one disk SKU and caching mode).

    ``group[i]`` names the row's group for explanations (a VM size, a service level; given
    as one name per row or as :class:`Labels`); ``families`` (default: ``family`` for every
    row) names each row's family when one batch stacks several (a disk SKU and caching
    mode);
    ``facts(i)`` lists rules of the catalog that bear on row ``i``, each with the resource
    kind it limits (``("disk", "Standard_D4s_v5 takes at most 8 data disks")``);
    ``config(i)`` rebuilds the row's configuration; rows of the same ``variant(i)`` differ
    only in a setting such as nconnect or host caching, so the ranking shows the best of
    them only.
    """

    family: str
    cost: np.ndarray
    latency: np.ndarray
    util: dict[str, np.ndarray]
    group: Labels
    config: Callable[[int], Config]
    facts: Callable[[int], list[tuple[str, str]]] = msgspec.field(default=lambda i: [])
    variant: Callable[[int], Hashable] = msgspec.field(default=lambda i: i)
    vm_path: dict[str, np.ndarray] = msgspec.field(default_factory=dict)
    """Disk rows: per kind of VM cap (``vm``, ``vm-cache``), the demand per IO on the
    response path, for sharing a VM between workloads."""
    count: np.ndarray | None = None
    """Disk rows: the data disks each row attaches."""
    families: Labels | None = None

    def __post_init__(self) -> None:
        self.group = Labels.of(self.group)
        if self.families is None:
            self.families = Labels([self.family], np.zeros(len(self.cost), dtype=np.intp))

    def __len__(self) -> int:
        return len(self.cost)

    def max_util(self, capacity: bool = True) -> np.ndarray:
        """The highest utilization of each row over every resource kind (``capacity`` too
        unless told not to: headroom is about resources, not space)."""
        cols = [u for k, u in self.util.items() if capacity or k != "capacity"]
        if not cols:
            return np.zeros(len(self))
        out = np.array(cols[0], dtype=float)
        for u in cols[1:]:  # as np.max over the stacked columns, without stacking them
            np.maximum(out, u, out=out)
        return out

    def ratio(self, limits: Limits) -> np.ndarray:
        """How far each row is from passing, as a ratio (at most 1 when it passes): the
        busiest resource over ``limits.max_utilization``, the capacity needed over what is
        there, the latency over its bound, whichever is worst. Never NaN (an unknown figure
        counts as infinitely far)."""
        out = self.max_util(capacity=False) / limits.max_utilization
        if "capacity" in self.util:
            out = np.maximum(out, self.util["capacity"])
        if limits.latency is not None:
            # an unbounded latency comes from a resource over 100 %, which the ratio counts already
            out = np.maximum(out, np.where(np.isfinite(self.latency), self.latency / limits.latency, 0.0))
        return np.where(np.isnan(out), np.inf, out)

    def feasible(self, limits: Limits) -> np.ndarray:
        """Rows that keep ``limits``: every resource within the utilization allowed, and the latency bound."""
        return limits.ok(self.util, self.latency)

    def binding(self, i: int) -> tuple[str, float]:
        """The busiest resource kind of row ``i`` (``capacity`` counts) and its utilization."""
        kind = max(self.util, key=lambda k: self.util[k][i])
        return kind, float(self.util[kind][i])
