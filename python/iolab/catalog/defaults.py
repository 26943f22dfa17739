"""Catalog-wide defaults: unloaded latencies and the simulator's delay distribution (assumptions)."""


from typing import Literal

from pydantic import NonNegativeFloat

from ..errors import SchemaError
from ..schema import PositiveDuration
from .row import Sourced

__all__ = ["Defaults"]


class Defaults(Sourced):
    """Values used where a row or a scenario does not give its own.

    - ``latency``: unloaded latency (seconds) per disk tier (``premium``, ``standard-ssd``,
      ``standard-hdd``, ``premium-v2``, ``ultra``) and per service (``anf``, ``gcnv``,
      ``azure-files``). A key may end in ``.read`` or ``.write`` for one direction only
      (``standard-hdd.write``), which wins over the plain key.
    - ``cache_hit_latency``: a host-cache hit (seconds).
    - ``delay_distribution`` and ``delay_cv``: how the simulator draws a delay around its
      mean (coefficient of variation for lognormal).
    """

    cache_hit_latency: PositiveDuration
    delay_distribution: Literal["deterministic", "exponential", "lognormal"] = "lognormal"
    delay_cv: NonNegativeFloat = 0.5
    latency: dict[str, PositiveDuration]

    def latency_for(self, key: str, direction: Literal["read", "write"] | None = None) -> float:
        """The default latency (seconds) of a tier or service, for one direction if given.

        Raises :class:`SchemaError` (at ``defaults.latency``) when no entry matches.
        """
        if direction and f"{key}.{direction}" in self.latency:
            return self.latency[f"{key}.{direction}"]
        if key in self.latency:
            return self.latency[key]
        raise SchemaError(f"no default latency for {key!r}", field="defaults.latency")
