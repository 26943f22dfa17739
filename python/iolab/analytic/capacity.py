"""What a path allows at any concurrency: the most IOPS for a mix of chains and the knee
(:func:`limits`), asymptotic bounds at a population (:func:`bounds`), and the fewest IOs in
flight that reach a throughput (:func:`reach`).

- ``X(N) ≤ min(N / (Z + ΣD), 1 / D_max)``; ``N* = (Z + ΣD) / D_max``.

All times in seconds, rates in ops/s.
"""

from __future__ import annotations

import math

import msgspec
from msgspec.structs import replace
import numpy as np

from ..network import Fork, Hold, Network, Step, Visit, walk
from .closed import chain_loads, effective_population, first_chain, in_turn, solve_closed
from .demands import Chains
from .mva import exact_reach

__all__ = ["Limits", "limits", "slot_seconds", "bounds", "reach"]


class Limits(msgspec.Struct, frozen=True):
    """What the path allows at any concurrency, for a mix of chains.

    ``max_iops``: the least of the caps' bound ``1 / max_k Σ w_j D[j,k]`` (background load
    included), each slot limit's (its slots over the slot-seconds one IO of the mix holds it
    unloaded; where every chain goes through slot limits, the MVA throughput once every slot
    limit is full, which the population waiting at the client cannot raise) and each rate
    limit's (``rate_j / w_j``); ``limit`` names the binding one. ``unloaded``: the mix's
    unloaded response time ``Σ w_j (Z_j + Σ φ D)``; ``knee = unloaded × max_iops``."""

    max_iops: float
    unloaded: float
    knee: float
    limit: str


def _steps_time(steps: tuple[Step, ...], caps: dict) -> float:
    """Unloaded time of a sequence of steps: a fork's branches run in parallel, so it takes
    the mean time of one branch (members are alike)."""
    t = 0.0
    for st in steps:
        if isinstance(st, Visit):
            t += caps[st.resource].demand(st.bytes) if st.resource in caps else st.latency
        elif isinstance(st, Fork):
            t += sum(_steps_time(b, caps) for b in st.branches) / max(len(st.branches), 1)
        elif isinstance(st, Hold):
            t += _steps_time(st.steps, caps)
    return t


def slot_seconds(network: Network, ch: Chains) -> np.ndarray:
    """(J, S): slot-seconds one IO of chain j holds slot limit s when unloaded."""
    caps = {r.id: r.cap for r in network.resources if r.cap is not None}
    sidx = {s.id: i for i, s in enumerate(network.slot_limits)}
    jidx = {j: i for i, j in enumerate(ch.jobs)}
    out = np.zeros((len(ch.jobs), len(network.slot_limits)))
    for c in network.classes:
        for st, w, _ in walk(c.route):
            if isinstance(st, Hold):
                out[jidx[c.job], sidx[st.slot_limit]] += c.probability * w * _steps_time(st.steps, caps)
    return out


def limits(network: Network, ch: Chains, X: np.ndarray | None = None) -> Limits:
    """The most IOPS the path allows for the mix of chains that throughputs ``X`` (the
    prediction's; the populations' when None) describe, and the knee (see :class:`Limits`)."""
    if len(ch.jobs) == 0 or ch.population.sum() <= 0:
        return Limits(math.inf, 0.0, 0.0, "")
    if X is not None and float(np.sum(X)) > 0:
        w = np.asarray(X, dtype=float) / float(np.sum(X))
    else:
        w = ch.population / ch.population.sum()
    unloaded = float(w @ (ch.delay + (ch.phi() * ch.demand).sum(axis=1)))
    found: list[tuple[float, str]] = []
    per_io = w @ (ch.demand + ch.background)
    if per_io.size and per_io.max() > 0:
        k = int(np.argmax(per_io))
        found.append((1.0 / float(per_io[k]), ch.caps[k]))
    if network.slot_limits:
        held = w @ slot_seconds(network, ch)
        for i, sl in enumerate(network.slot_limits):
            if held[i] > 0:
                found.append((sl.slots / float(held[i]), sl.id))
        if bool((ch.slots.sum(axis=1) > 0).all()):
            wanted = ch.population @ ch.slots
            need = max((sl.slots / wanted[i] for i, sl in enumerate(network.slot_limits) if wanted[i] > 0),
                       default=1.0)
            full = replace(ch, population=ch.population * max(1.0, 2.0 * need))
            found.append((float(solve_closed(full, network, full.demand)[0].sum()), "slots"))
    if ch.rate is not None:
        for j, r in enumerate(ch.rate):
            if math.isfinite(r) and w[j] > 0:
                found.append((float(r) / float(w[j]), ch.jobs[j]))
    if not found:
        return Limits(math.inf, unloaded, math.inf, "")
    best, name = min(found)
    return Limits(best, unloaded, unloaded * best, name)


def reach(network: Network, ch: Chains, target: float, *, most: float = 1e6) -> float | None:
    """The fewest IOs in flight (all chains' populations scaled together) at which the
    closed model gives ``target`` IOPS, to within 1 % or half an IO (the upper end of a
    bracket that narrow); None when no population up to ``most`` does.

    The search starts where Little's law allows it (no chain can beat its population over
    its unloaded latency), doubles until the target is reached, then closes the bracket by
    regula falsi (the Illinois variant). One chain with neither a rate limit nor a
    background load needs no search: one climb of exact MVA's recursion passes every
    population (:func:`~.mva.exact_reach`)."""
    direct = _reach_one_chain(network, ch, target, most)
    if direct is not None:
        return direct
    last: list = []   # the latest solve's scale and queues: the next one starts from them

    def iops(f: float) -> float:
        scaled = replace(ch, population=ch.population * f)
        start = last[1] * (f / last[0]) if last and last[1] is not None else None
        X, _, _, Q = solve_closed(scaled, network, scaled.demand, start)
        last[:] = [f, Q]
        return float(X.sum())

    total = float(ch.population.sum())
    if total <= 0:
        return None
    r0 = ch.delay + (ch.phi() * ch.demand).sum(axis=1)   # each chain's unloaded latency
    lo = 0.0
    if bool((r0[ch.population > 0] > 0).all()):
        lo = target / float(np.sum(ch.population[ch.population > 0] / r0[ch.population > 0]))
    x_lo = iops(lo) if lo > 0 else 0.0
    hi = max(2.0 * lo, 1.0 / total)
    x_hi = iops(hi)
    while x_hi < target:
        lo, x_lo, hi = hi, x_hi, hi * 2
        if hi * total > most:
            return None
        x_hi = iops(hi)

    def wide() -> bool:
        return (hi - lo) * total > max(0.5, 0.01 * hi * total)

    g_lo, g_hi, side = x_lo - target, x_hi - target, 0
    while wide():   # Illinois: regula falsi that halves the weight of an end kept twice
        w = hi - lo
        c = lo - g_lo * w / (g_hi - g_lo) if g_hi > g_lo else lo + w / 2
        c = min(max(c, lo + 0.02 * w), hi - 0.02 * w)
        g_c = iops(c) - target
        if g_c < 0:
            lo, g_lo = c, g_c
            g_hi = g_hi / 2 if side < 0 else g_hi
            side = -1
        else:
            hi, g_hi = c, g_c
            g_lo = g_lo / 2 if side > 0 else g_lo
            side = 1
    return hi * total


def _reach_one_chain(network: Network, ch: Chains, target: float, most: float) -> float | None:
    """:func:`reach` for one chain whose closed solution is one exact MVA (no rate limit,
    no background load: :func:`~.closed.solve_closed` in one round); None otherwise, or when the
    climb cannot tell. Slot limits hold the population at their slots, so the climb stops
    there."""
    if len(ch.population) != 1 or ch.population[0] <= 0 or ch.background.any():
        return None
    if ch.rate is not None and bool(np.isfinite(ch.rate).any()):
        return None
    held = float(effective_population(replace(ch, population=np.array([most])), network)[0])
    D, Z = in_turn(ch, ch.demand, ch.delay + ch.thinking())
    return exact_reach(D[0], float(Z[0]), target, held, ch.phi()[0], first_chain(chain_loads(ch, ch.demand)),
                       ch.variation())

def bounds(ch: Chains, N: float) -> tuple[float, float]:
    """Asymptotic bounds on total throughput at population N for the chains' mix:
    ``(lower, upper)`` with upper = min(N / (Z + ΣD), 1 / D_max) and the pessimistic lower
    bound N / (Z + Δ + N ΣD), Δ the load delays at full caps; the sums count a fork's
    parallel members once (``phi``)."""
    w = ch.population / ch.population.sum()
    d = w @ ch.demand
    z = float(w @ ch.delay)
    most = float(w @ ch.load_delay(np.ones(len(ch.laws))))  # load delays at full caps
    total = float((w @ (ch.phi() * ch.demand)).sum())
    upper = min(N / (z + total), 1.0 / float(d.max())) if total > 0 else N / z
    lower = N / (z + most + N * total) if total > 0 else N / (z + most)
    return lower, upper
