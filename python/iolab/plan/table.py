"""Evaluated configurations as columns: one :class:`Batch` per family of the search space.

A batch holds, for each of its rows (configurations), the monthly cost (NaN when the
catalog has no price for a part), the utilization at the required load of each kind of
resource (the busiest resource of that kind), the mean latency at that load (seconds,
inf when a resource is saturated), and how to rebuild a row's :class:`Config`.
Resource kinds are docs/model.md's, plus ``capacity`` (required over usable bytes).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

import numpy as np

from .config import Config

__all__ = ["Batch", "WORDS", "TOLERANCE"]

TOLERANCE = 1e-9
"""A utilization up to 1 + TOLERANCE counts as at most 1."""

WORDS = {
    "vm": "the VM's uncached limit",
    "vm-cache": "the VM's cached limit",
    "disk": "the disks",
    "network": "the VM's network egress",
    "connection": "the client's connections",
    "connection-slots": "the NFSv3 connection slots",
    "session": "the NFSv4.1 session slots",
    "service": "the service's limit",
    "capacity": "capacity",
}
"""How a resource kind reads in an explanation."""


@dataclass
class Batch:
    """Rows of one family (say, every VM × count for one disk SKU and caching mode).

    ``group[i]`` names the row's group for explanations (a VM size, a service level);
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
    group: list[str]
    config: Callable[[int], Config]
    facts: Callable[[int], list[tuple[str, str]]] = field(default=lambda i: [])
    variant: Callable[[int], Hashable] = field(default=lambda i: i)

    def __len__(self) -> int:
        return len(self.cost)

    def max_util(self, capacity: bool = True) -> np.ndarray:
        """The highest utilization of each row over every resource kind (``capacity`` too
        unless told not to: headroom is about resources, not space)."""
        cols = [u for k, u in self.util.items() if capacity or k != "capacity"]
        return np.max(np.vstack(cols), axis=0) if cols else np.zeros(len(self))

    def feasible(self, latency: float | None) -> np.ndarray:
        """Rows whose every utilization is at most 1 and, with a latency bound, whose latency meets it."""
        ok = self.max_util() <= 1.0 + TOLERANCE
        if latency is not None:
            ok &= self.latency <= latency * (1.0 + TOLERANCE)
        return ok

    def binding(self, i: int) -> tuple[str, float]:
        """The busiest resource kind of row ``i`` (``capacity`` counts) and its utilization."""
        kind = max(self.util, key=lambda k: self.util[k][i])
        return kind, float(self.util[kind][i])
