"""The open model: for a required rate, utilizations, the latency ``R = Z + Σ D ×
stretch(U)`` (each cap an M/G/1 station of its service's variation: a throttle's M/D/1
``1 + U / (2 (1 − U))``), load delays evaluated at the required load, and the concurrency
``λ R`` (:func:`solve_open`, and :func:`open_model` for many configurations at once).

All times in seconds, rates in ops/s.
"""

from __future__ import annotations

import math

import msgspec
import numpy as np

from ..network import Network
from .demands import THROTTLE_CV2, chains

__all__ = ["OpenSolution", "open_model", "solve_open", "stretch", "stretched", "residence"]


def stretch(u, cv2=THROTTLE_CV2, turns=1):
    """Open model: how many times its demand an IO spends at a cap of utilization ``u``
    (M/G/1: ``1 + u (1 + cv²) / (2 (1 − u))``; exponential service, cv² = 1, gives M/M/1's
    ``1 / (1 − u)``; a throttle, cv² = 0, M/D/1's), inf at a full cap. A cap one of
    ``turns`` that take IOs in turn waits ``1 / turns`` of that (the group queues as one
    server ``turns`` times as fast: Seidmann's approximation). Scalars or arrays."""
    u = np.asarray(u, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(u < 1.0, 1.0 + u * (1.0 + cv2) / (2.0 * (1.0 - u)) / turns, np.inf)


def residence(d, u, cv2=THROTTLE_CV2, turns=1):
    """Open model: the time an IO of demand ``d`` spends at a cap of utilization ``u``,
    ``d × stretch(u)`` (see :func:`stretch`): 0 without demand, inf at a full cap."""
    return stretched(d, stretch(u, cv2, turns))


def stretched(d, s):
    """``d × s``, the time at a cap that stretches an IO's demand ``d`` ``s`` times (a
    :func:`stretch` computed once for several demands): 0 without demand."""
    d = np.asarray(d, dtype=float)
    with np.errstate(invalid="ignore"):
        return np.where(d > 0, d * s, 0.0)


class OpenSolution(msgspec.Struct, frozen=True):
    """The open-model analysis at a required rate: feasible when every U ≤ 1."""

    rate: float
    utilization: dict[str, float]
    latency: float               # mean seconds (inf when infeasible)
    concurrency: float           # λ × R: IOs the application must keep in flight
    feasible: bool
    bottleneck: str              # resource id with the highest utilization
    jobs: dict[str, float] = msgspec.field(default_factory=dict)  # mean seconds per job (inf when infeasible)


def open_model(D: np.ndarray, Z: np.ndarray, lam: np.ndarray, cv2: float = THROTTLE_CV2
               ) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised open analysis over many configurations.

    ``D``: (..., K) demand per IO at each cap, ``Z``: (...) delay per IO, ``lam``: (...)
    required rate; ``cv2``: the caps' squared coefficient of variation of service (a
    throttle's 0; 1 for M/M/1). Returns (U (..., K), R (...)) with R = Z + Σ D × stretch(U),
    inf where any U ≥ 1."""
    U = lam[..., None] * D
    return U, Z + residence(D, U, cv2).sum(axis=-1)


def solve_open(network: Network, rate: float, rates: dict[str, float] | None = None) -> OpenSolution:
    """Open analysis of a network at a total required ``rate`` (ops/s), split over its jobs
    in proportion to their populations, or at ``rates`` (ops/s per job name) when given."""
    ch = chains(network)
    if rates is not None:
        lam = np.array([rates[j] for j in ch.jobs], dtype=float)
        rate = float(lam.sum())
        share = lam / rate
    else:
        share = ch.population / ch.population.sum()
        lam = rate * share
    U = lam @ ch.demand + lam @ ch.background
    resid = residence(ch.phi() * ch.demand, U[None, :], ch.variation(), ch.turn_size())
    R_j = ch.delay + ch.load_delay(np.minimum(U[ch.law_caps()], 1.0)) + resid.sum(axis=1)
    R = float(share @ R_j)
    feasible = bool((U <= 1.0 + 1e-9).all())
    top = int(np.argmax(U)) if len(U) else 0
    return OpenSolution(
        rate=rate,
        utilization={k: float(U[i]) for i, k in enumerate(ch.caps)},
        latency=R if feasible else math.inf,
        concurrency=rate * R if feasible else math.inf,
        feasible=feasible,
        bottleneck=ch.caps[top] if len(ch.caps) else "",
        jobs={j: float(R_j[i]) if feasible else math.inf for i, j in enumerate(ch.jobs)},
    )
