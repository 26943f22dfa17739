"""Load delays (a share's latency under load, :class:`~iolab.network.LoadLaw`): a delay
whose mean follows the utilization of a cap. The closed solution needs the throughput at
which the delays and the load that causes them agree: for one chain the root of
``X (A + Σ p × delay(X c)) = n`` (:func:`loaded_rate`), for several chains each law's
utilization solved in turn (:func:`loaded_delays`).

All times in seconds, rates in ops/s.
"""

from __future__ import annotations

import math

import numpy as np

from ..network import LoadLaw

__all__ = ["Loads", "ChainLoads", "load_time", "loaded_rate", "rate_function", "loaded_delays"]

#: Load delays of one chain: (passes per IO, law, the IO's demand at the law's cap). The
#: delay an IO spends is ``Σ passes × law.delay(X × demand)`` at the chain's throughput X.
Loads = tuple[tuple[float, LoadLaw, float], ...]

#: Load delays of several chains: passes (J, L), the laws, and each chain's demand at each
#: law's cap (J, L).
ChainLoads = tuple[np.ndarray, tuple[LoadLaw, ...], np.ndarray]


def load_time(X: float, load: Loads) -> float:
    return sum(p * law.delay(X * c) for p, law, c in load)


def loaded_rate(n: float, A: float, load: Loads) -> float:
    """The throughput ``X`` of ``n`` IOs in flight whose cycle is ``A`` seconds plus the
    load delays at ``X``: the root of ``F(X) = X (A + Σ p × delay(X c)) − n``. ``F`` grows
    with ``X``, so the root is unique; it lies between ``n / (A + the delays at full caps)``
    and ``n / A``. Laws of exponent 1 are linear between their breakpoints, where ``F`` is
    a quadratic solved exactly (:func:`_linear_rate`); others by Newton's method kept
    inside that bracket."""
    hi = n / A if A > 0 else math.inf
    if not load or not math.isfinite(hi) or load_time(hi, load) <= 0.0:
        return hi
    if all(law.exponent == 1.0 for _, law, _ in load):
        return _linear_rate(n, A, load, hi)
    lo = n / (A + sum(p * law.scale for p, law, _ in load))
    x = hi
    for _ in range(60):
        f = x * (A + load_time(x, load)) - n
        if abs(f) <= 1e-12 * n:
            break
        if f > 0:
            hi = x
        else:
            lo = x
        slope = A + load_time(x, load) + x * sum(p * c * law.slope(x * c) for p, law, c in load)
        step = x - f / slope
        x = step if lo < step < hi else 0.5 * (lo + hi)
        if hi - lo <= 1e-14 * hi:
            break
    return x


def _linear_rate(n: float, A: float, load: Loads, hi: float) -> float:
    """:func:`loaded_rate` for laws of exponent 1: between breakpoints (where a law starts
    or reaches a full cap) the delays are ``a + b X``, so ``X (A + a + b X) = n``."""
    cuts = sorted({0.0, hi} | {x for _, law, c in load if c > 0
                               for x in (law.onset / c, 1.0 / c) if 0.0 < x < hi})
    for left, right in zip(cuts, cuts[1:]):
        mid = 0.5 * (left + right)
        a = b = 0.0
        for p, law, c in load:
            u = mid * c
            if u >= 1.0:
                a += p * law.scale
            elif u > law.onset:
                k = p * law.scale / (1.0 - law.onset)
                a -= k * law.onset
                b += k * c
        if right * (A + a + b * right) - n < 0.0:
            continue
        if b <= 0.0:
            return n / (A + a)
        return 2.0 * n / ((A + a) + math.sqrt((A + a) ** 2 + 4.0 * b * n))
    return hi


def rate_function(load: Loads):
    """``(n, A) -> X`` as :func:`loaded_rate` for ``load``, with the common case (no load
    delay, or one law of exponent 1: a share) in a few float operations."""
    if not load:
        return lambda n, A: n / A if A > 0 else math.inf
    if len(load) == 1 and load[0][1].exponent == 1.0 and load[0][2] > 0:
        p, law, c = load[0]
        s, o = p * law.scale, law.onset
        k = s / (1.0 - o)
        start, full = o / c, 1.0 / c   # throughputs where the delay starts and where it is full

        def one(n: float, A: float) -> float:
            if A <= 0:
                return math.inf
            X = n / A
            if X <= start:
                return X
            a = A - k * o
            X = 2.0 * n / (a + math.sqrt(a * a + 4.0 * k * c * n))
            return X if X <= full else n / (A + s)

        return one
    return lambda n, A: loaded_rate(n, A, load)


def loaded_delays(N: np.ndarray, A: np.ndarray, load: ChainLoads,
                   near: np.ndarray) -> np.ndarray:
    """Each chain's load delays (J,) when its throughput is ``N / (A + delays)`` and every
    law's delay follows the utilization those throughputs cause (``load`` as
    :func:`~.closed.chain_loads` gives it): the several-chain form of :func:`loaded_rate`. A law's
    utilization ``u`` solves ``u = Σ c N / (A + p × delay(u))``, whose right side falls as
    ``u`` grows, so the root is unique (Newton's method kept inside a shrinking bracket);
    several laws are solved in turn until their delays settle. Evaluating the delays at the
    previous round's utilization instead swings between a light load and a heavy one where
    a law is steep. ``near`` (L,): utilizations to start each law's search from (the last
    round's)."""
    passes, laws, c = load
    L = len(laws)
    P, C, Ns, As = passes.tolist(), c.tolist(), N.tolist(), A.tolist()
    coupled = any(sum(1 for x in row if x) > 1 for row in P)   # a chain meets several laws
    delay = [0.0] * L
    for _ in range(50 if coupled else 1):
        moved = 0.0
        for l, law in enumerate(laws):
            terms = [(n * cj[l], a + sum(pm * dm for m, (pm, dm) in enumerate(zip(pj, delay)) if m != l), pj[l])
                     for n, a, pj, cj in zip(Ns, As, P, C) if n * cj[l] > 0]
            new = law.delay(_law_utilization(terms, law, float(near[l])))
            moved = max(moved, abs(new - delay[l]) / max(new, delay[l], 1e-300))
            delay[l] = new
        if moved <= 1e-12:
            break
    return np.array([sum(pm * dm for pm, dm in zip(pj, delay)) for pj in P])


def _law_utilization(terms: list[tuple[float, float, float]], law: LoadLaw, near: float = 1.0) -> float:
    """The root ``u`` of ``u = Σ w / (rest + p × delay(u))`` over the chains' ``terms`` (``w``:
    the chain's population times its demand at the law's cap; ``rest``: its cycle without
    this law's delay; ``p``: how often it meets the delay), searched from ``near`` (kept
    inside the bounds)."""
    if not terms:
        return 0.0
    hi = sum(wj / rj for wj, rj, _ in terms) if all(rj > 0 for _, rj, _ in terms) else math.inf  # no delay
    if hi <= law.onset:
        return hi
    lo = sum(wj / (rj + pj * law.scale) for wj, rj, pj in terms)        # the full delay: the least
    u = min(max(near, lo), hi, 1.0)
    for _ in range(100):
        d = law.delay(u)
        g, dg = u, 0.0
        for wj, rj, pj in terms:
            den = rj + pj * d
            g -= wj / den
            dg += wj * pj / (den * den)
        if abs(g) <= 1e-15 * max(u, 1e-300):
            return u
        if g > 0:
            hi = u
        else:
            lo = u
        if hi - lo <= 1e-13 * max(hi, 1e-300):
            return 0.5 * (lo + hi)
        step = u - g / (1.0 + law.slope(u) * dg)
        u = step if lo < step < hi else 0.5 * (lo + hi)
    return u
