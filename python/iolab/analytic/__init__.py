"""The analytic engine: mean value analysis of a compiled :class:`~iolab.network.Network`.

- **Chains** (:mod:`.demands`): each fio job is a chain whose IOs pick their class by its
  probability (class switching within a chain), so a chain's demand at a resource is the
  probability-weighted mix of its classes'.
- **Kernels** (:mod:`.mva`): one chain, exact MVA; several chains (several jobs, several
  clients), Schweitzer–Bard approximate MVA.
- **Closed** (:mod:`.closed`, ``solve`` in :mod:`.solution`): slot limits cap the population
  that enters their segment; the rest waits at the client, so the latency the application
  sees is ``R = N / X`` over the whole population.
- **Load delays** (:mod:`.load_delays`, a share's latency under load,
  :class:`~iolab.network.LoadLaw`): a delay whose mean follows the utilization of a cap. In
  the closed solution, at each population step, the throughput and the delay it causes
  agree (:func:`~.load_delays.loaded_rate`); the open one evaluates the law at the required
  load.
- **Bounds and knee** (:mod:`.capacity`): ``X(N) ≤ min(N / (Z + ΣD), 1 / D_max)``;
  ``N* = (Z + ΣD) / D_max``.
- **Open** (:mod:`.open_analysis`: ``solve_open`` and the vectorised ``open_model``): for a
  required rate, utilizations, the latency ``R = Z + Σ D × stretch(U)`` (each cap an M/G/1
  station of its service's variation: a throttle's M/D/1 ``1 + U / (2 (1 − U))``) and the
  concurrency ``λ R``.

The modules form a chain: ``load_delays``, ``mva``, ``demands``, ``closed``, ``capacity``,
``solution``; ``open_analysis`` beside the last three. All times in seconds, rates in ops/s.
"""

from __future__ import annotations

from .capacity import Limits, bounds, limits, reach
from .demands import SERVICE_CV2, THROTTLE_CV2, Chains, chains
from .mva import exact_mva, schweitzer_mva
from .open_analysis import OpenSolution, open_model, residence, solve_open, stretch, stretched
from .solution import SATURATION, BurstResult, ClassResult, LoadDelay, ResourceLoad, SlotLoad, Solution, solve

__all__ = [
    "Chains",
    "ResourceLoad",
    "SlotLoad",
    "ClassResult",
    "BurstResult",
    "LoadDelay",
    "Solution",
    "OpenSolution",
    "chains",
    "exact_mva",
    "schweitzer_mva",
    "solve",
    "solve_open",
    "open_model",
    "bounds",
    "Limits",
    "limits",
    "reach",
    "SATURATION",
    "SERVICE_CV2",
    "THROTTLE_CV2",
    "stretch",
    "stretched",
    "residence",
]
